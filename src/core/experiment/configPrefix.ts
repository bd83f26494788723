// The config prefix: the part of a resolved experiment config that the stages before the student stage read
// (demonstrations, SFT, the in-run or shipped teacher and its S_T, and what they run on). Two runs with the same
// prefix key compute the same prefix bit for bit (seeds.ts's per-stage RNG scheme), so a sweep trains it once and
// forks every other run of the group from the stage-end checkpoint before its student stage (docs/ablations.md).
// Every leaf key of the schema (configSchema.ts) is classified in CONFIG_KEY_STAGES, read off the trainer's stage
// modules (src/engine/trainer/stages/); a key in doubt is 'prefix' (less sharing, never a wrong result). Pure TS.
import { configDiff, getConfigValue, type ExperimentConfig } from './config';

/** Which part of a run reads a config key: the prefix stages, or only the student stage and what follows it. */
export type ConfigKeyStage = 'prefix' | 'student';

/**
 * Every leaf key of the config schema and the part of the run that reads it (test/core/experiment/configPrefix.test.ts
 * fails when a schema key is missing here). 'student': read only from the student stage on (the student's GRPO and
 * OPD, the λ_opd schedule and its gate, the budget, the final evaluation) or never by the trainer (name).
 * student.schedule is 'student' but for one fact the prefix does read: schedule none skips the teacher stage
 * (prefixKeyOf adds it). student.validation{Tasks,Temperature,Metric} are 'prefix': the teacher's S_T is measured
 * with them (stages/stageRollouts.ts). runtime.* are 'prefix': the checkpoints the prefix writes are in its logs.
 */
export const CONFIG_KEY_STAGES: Readonly<Record<string, ConfigKeyStage>> = {
  name: 'student',
  seed: 'prefix',
  'env.name': 'prefix',
  'env.seed': 'prefix',
  'env.misleadingSkillFraction': 'prefix',
  'env.invalidActionPenalty': 'prefix',
  'env.randomFacts': 'prefix',
  'model.width': 'prefix',
  'model.layers': 'prefix',
  'model.heads': 'prefix',
  'model.mlp': 'prefix',
  'demonstrations.tasks': 'prefix',
  'demonstrations.studentPolicy': 'prefix',
  'demonstrations.teacherPolicy': 'prefix',
  'sft.steps': 'prefix',
  'sft.batchSize': 'prefix',
  'sft.learningRate': 'prefix',
  'sft.lambdaObs': 'prefix',
  'sft.geometryEvery': 'prefix',
  'sft.heldOutTasks': 'prefix',
  'teacher.sftSteps': 'prefix',
  'teacher.steps': 'prefix',
  'teacher.grpo.groupSize': 'prefix',
  'teacher.grpo.tasksPerStep': 'prefix',
  'teacher.grpo.learningRate': 'prefix',
  'teacher.grpo.temperature': 'prefix',
  'teacher.grpo.clipLow': 'prefix',
  'teacher.grpo.clipHigh': 'prefix',
  'teacher.grpo.advantage': 'prefix',
  'teacher.grpo.aggregation': 'prefix',
  'teacher.grpo.klBeta': 'prefix',
  'teacher.grpo.advantageEpsilon': 'prefix',
  'teacher.grpo.gradClip': 'prefix',
  'teacher.grpo.clipRatioC': 'prefix',
  'teacher.grpo.miniBatches': 'prefix',
  'teacher.grpo.epochs': 'prefix',
  'teacher.checkpoint': 'prefix',
  'student.steps': 'student',
  'student.grpo.groupSize': 'student',
  'student.grpo.tasksPerStep': 'student',
  'student.grpo.learningRate': 'student',
  'student.grpo.temperature': 'student',
  'student.grpo.clipLow': 'student',
  'student.grpo.clipHigh': 'student',
  'student.grpo.advantage': 'student',
  'student.grpo.aggregation': 'student',
  'student.grpo.klBeta': 'student',
  'student.grpo.advantageEpsilon': 'student',
  'student.grpo.gradClip': 'student',
  'student.grpo.clipRatioC': 'student',
  'student.grpo.miniBatches': 'student',
  'student.grpo.epochs': 'student',
  'student.schedule': 'student',
  'student.lambdaOpd': 'student',
  'student.estimator': 'student',
  'student.distill.form': 'student',
  'student.distill.topK': 'student',
  'student.distill.beta': 'student',
  'student.distill.studentFraction': 'student',
  'student.distill.refreshEvery': 'student',
  'student.validationEvery': 'student',
  'student.validationTasks': 'prefix',
  'student.validationTemperature': 'prefix',
  'student.validationMetric': 'prefix',
  'student.gate.windowSize': 'student',
  'student.gate.alignmentThreshold': 'student',
  'student.gate.competenceThreshold': 'student',
  'student.gate.denominatorEpsilon': 'student',
  'evaluation.testTasks': 'student',
  'evaluation.passN': 'student',
  'evaluation.passK': 'student',
  'evaluation.probeTasks': 'student',
  'evaluation.temperatures': 'student',
  'evaluation.matchArgEntropy': 'student',
  'runtime.backend': 'prefix',
  'runtime.checkpointEvery': 'prefix',
  'runtime.keepCheckpoints': 'prefix',
};

const PREFIX_KEYS = Object.keys(CONFIG_KEY_STAGES).filter((k) => CONFIG_KEY_STAGES[k] === 'prefix');

/** Whether the run trains or loads a teacher: schedule none skips the teacher stage (src/engine/trainer/trainer.ts). */
export const runsTeacherStage = (cfg: ExperimentConfig): boolean => cfg.student.schedule !== 'none';

/**
 * The prefix key of a resolved config: canonical JSON of every 'prefix' key's value (in CONFIG_KEY_STAGES order)
 * and whether the teacher stage runs. Equal keys ⇔ the runs' stages before the student stage are identical.
 */
export function prefixKeyOf(cfg: ExperimentConfig): string {
  return JSON.stringify([
    ...PREFIX_KEYS.map((k) => [k, getConfigValue(cfg, k)]),
    ['teacherStage', runsTeacherStage(cfg)],
  ]);
}

/** The prefix keys on which two configs differ ("sft.steps: 8 ≠ 9"), for messages; empty when they share a prefix. */
export function prefixDiff(a: ExperimentConfig, b: ExperimentConfig): string[] {
  const diff = configDiff(a, b).filter((line) => CONFIG_KEY_STAGES[line.slice(0, line.indexOf(':'))] !== 'student');
  if (runsTeacherStage(a) !== runsTeacherStage(b))
    diff.push(`student.schedule: ${a.student.schedule} ≠ ${b.student.schedule} (none skips the teacher stage)`);
  return diff;
}

/**
 * The checkpoint a prefix fork starts from: the stage-end checkpoint written just before the student stage —
 * student-000000, or teacher-000000 with schedule none (its teacher stage is skipped, so the last stage-end
 * checkpoint is the one after SFT).
 */
export function forkPointOf(cfg: ExperimentConfig): { stage: 'teacher' | 'student'; step: 0 } {
  return { stage: runsTeacherStage(cfg) ? 'student' : 'teacher', step: 0 };
}
