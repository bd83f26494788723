// Whether a run's stored step lines are whole: each trained stage's lines are steps 1, 2, …, k in order, no step
// missing or repeated, and — for a stage that ended (its 'stage' end event's totalSteps) — k reaches its length. A run is called completed only when its lines pass (the tab's recorder asks before it writes
// "completed"; the CLI may read its metrics.jsonl through the same check), and a resume starts from the newest
// checkpoint whose lines are all stored, so a reload that kept a checkpoint but lost the last lines before it leaves
// no hole: the lines after that checkpoint are dropped and trained again.
import { checkpointRunOrder, parseCheckpointName, STAGE_NAMES, type StageName } from './checkpointName';
import { TRAINED_STAGES, type TrainedStage } from './runLogFold';
import type { TrainerEvent } from './trainerEvent';

/** One stored step line's place: its stage and its step (1-based: the line of the step that completed `step`). */
export interface StepLinePlace {
  stage: TrainedStage;
  step: number;
}

/** The first thing wrong with a run's step lines. */
export interface StepLineFault {
  stage: TrainedStage;
  /** the step that is missing (or whose line is out of place) */
  step: number;
  kind: 'missing' | 'out of order' | 'repeated';
}

/**
 * How `step` follows `prev`, the last step of its stage in order (0 before the first): null when it is the next one,
 * steps 1, 2, … each once. The one rule of a stage's step lines, for the stored lines here and a run folder's log
 * files (runLogCheck.ts).
 */
export function stepOrderFault(prev: number, step: number): StepLineFault['kind'] | null {
  if (step === prev) return 'repeated';
  if (step < prev) return 'out of order';
  if (step > prev + 1) return 'missing';
  return null;
}

/** Each trained stage's length as its 'stage' end event says (a stage that ended ran all its steps). */
export function endedStageSteps(events: readonly TrainerEvent[]): Partial<Record<TrainedStage, number>> {
  const totals: Partial<Record<TrainedStage, number>> = {};
  for (const e of events)
    if (e.type === 'stage' && e.status === 'end' && (TRAINED_STAGES as readonly string[]).includes(e.stage))
      totals[e.stage as TrainedStage] = e.totalSteps;
  return totals;
}

/**
 * The first fault of `lines` (in the order they are stored), or null when they are whole: per stage, steps 1…k
 * with no gap, repeat or step out of order, stages in run order, and k equal to `expected[stage]` where given.
 */
export function checkStepLines(
  lines: readonly StepLinePlace[],
  expected: Partial<Record<TrainedStage, number>> = {},
): StepLineFault | null {
  const last: Record<TrainedStage, number> = { sft: 0, teacher: 0, student: 0 };
  let stageAt = -1;
  for (const { stage, step } of lines) {
    const at = TRAINED_STAGES.indexOf(stage);
    if (at < stageAt) return { stage, step, kind: 'out of order' };
    stageAt = at;
    const prev = last[stage];
    const kind = stepOrderFault(prev, step);
    if (kind !== null) return { stage, step: kind === 'missing' ? prev + 1 : step, kind };
    last[stage] = step;
  }
  for (const stage of TRAINED_STAGES) {
    const total = expected[stage];
    if (total !== undefined && last[stage] < total) return { stage, step: last[stage] + 1, kind: 'missing' };
  }
  return null;
}

/** "student step 128 is missing" */
export function describeStepLineFault(f: StepLineFault): string {
  return `${f.stage} step ${f.step} ${f.kind === 'missing' ? 'is missing' : f.kind === 'repeated' ? 'is stored twice' : 'is out of order'}`;
}

/**
 * Whether a checkpoint taken after `step` steps of `stage` has all its lines despite `fault`: the fault lies after
 * it (a later stage, or a later step of its stage). A checkpoint of a stage that trains nothing before the fault's
 * stage counts the same way.
 */
export function checkpointPrecedes(stage: StageName, step: number, fault: StepLineFault | null): boolean {
  if (fault === null) return true;
  const a = STAGE_NAMES.indexOf(stage);
  const b = STAGE_NAMES.indexOf(fault.stage);
  return a < b || (a === b && step < fault.step);
}

/** Per stage, the highest step k whose lines 1…k are all stored, counting only the lines before the first fault. */
function wholeUpTo(lines: readonly StepLinePlace[], fault: StepLineFault | null): Record<TrainedStage, number> {
  const upTo: Record<TrainedStage, number> = { sft: 0, teacher: 0, student: 0 };
  for (const { stage, step } of lines) {
    if (fault && !checkpointPrecedes(stage, step, fault)) break;
    if (step === upTo[stage] + 1) upTo[stage] = step;
  }
  return upTo;
}

/**
 * The newest of `names` (checkpoint names) a resume may start from without a hole in the lines: every line before
 * it is stored — its own stage's steps up to it, and each earlier stage whole (to its length in `ended`, where that
 * stage's end event is stored) — and no line before it is out of order. Null when none qualifies.
 */
export function resumableCheckpoint(
  names: readonly string[],
  lines: readonly StepLinePlace[],
  ended: Partial<Record<TrainedStage, number>> = {},
): string | null {
  // only the lines before a checkpoint count: the resume drops the ones after it
  const fault = checkStepLines(lines);
  const upTo = wholeUpTo(lines, fault);
  const ordered = names
    .map((name) => ({ name, at: parseCheckpointName(name) }))
    .filter((c): c is { name: string; at: { stage: StageName; step: number } } => c.at !== null)
    .sort((x, y) => checkpointRunOrder(y.name) - checkpointRunOrder(x.name));
  const whole = ({ stage, step }: { stage: StageName; step: number }) =>
    checkpointPrecedes(stage, step, fault) &&
    TRAINED_STAGES.every((t) => {
      const order = STAGE_NAMES.indexOf(t) - STAGE_NAMES.indexOf(stage);
      if (order === 0) return upTo[t] >= step;
      return order > 0 || upTo[t] >= (ended[t] ?? 0);
    });
  return ordered.find((c) => whole(c.at))?.name ?? null;
}
