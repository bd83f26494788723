// Overrides that make a story preset or sweep as small and short as the smoke preset (model, steps, tasks, gate; no
// shipped teacher), for the Chromium tests that queue real presets.
/** A preset or sweep (the schedules sweep, the lesson's arms) at the smoke preset's size and length. */
export const SHORT = [
  'teacher.checkpoint=',
  'model.width=32',
  'model.layers=1',
  'model.heads=2',
  'model.mlp=64',
  'demonstrations.tasks=64',
  'sft.steps=8',
  'sft.batchSize=16',
  'sft.geometryEvery=4',
  'sft.heldOutTasks=8',
  'teacher.steps=3',
  'teacher.grpo.groupSize=4',
  'teacher.grpo.tasksPerStep=4',
  'student.steps=20',
  'student.validationTasks=8',
  'student.grpo.groupSize=4',
  'student.grpo.tasksPerStep=4',
  'evaluation.testTasks=8',
  'evaluation.passN=4',
  'evaluation.passK=[1,4]',
  'evaluation.probeTasks=4',
  'runtime.checkpointEvery=5',
  // relaxed as in smoke, so the gate retires the teacher within the 20 steps
  'student.gate.alignmentThreshold=1000000',
  'student.gate.competenceThreshold=0',
];
