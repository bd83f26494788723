// A checkpoint's name in a run: "<stage>-<completed steps, 6 digits>", e.g. "student-000040". The CLI's run folder
// (checkpoints/<name>/), the tab's stored run and the trainer all name and read checkpoints through these functions.

/** The trainer's stages, in run order. */
export const STAGE_NAMES = ['demonstrations', 'sft', 'teacher', 'student', 'evaluation'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

/** The name of the checkpoint taken after `step` completed steps of `stage`. */
export function checkpointName(stage: StageName, step: number): string {
  return `${stage}-${String(step).padStart(6, '0')}`;
}

/** "student-000010" → its stage and completed steps; null for a name that is not a checkpoint's. */
export function parseCheckpointName(name: string): { stage: StageName; step: number } | null {
  const m = /^([a-z]+)-(\d{6,})$/.exec(name);
  if (!m || !(STAGE_NAMES as readonly string[]).includes(m[1] ?? '')) return null;
  return { stage: m[1] as StageName, step: Number(m[2]) };
}

/** A sort key in run order (earlier stage first, then fewer steps); −1 for a name that is not a checkpoint's. */
export function checkpointRunOrder(name: string): number {
  const at = parseCheckpointName(name);
  return at ? STAGE_NAMES.indexOf(at.stage) * 1e7 + at.step : -1;
}
