// How fresh the gate's evidence is, and which window size W would keep it fresh (docs/METHODS.md §4).
// Windows close every W observed gaps; each validation evaluates one window, the OLDEST completed one not yet
// evaluated. With V gaps between two validations:
//  - W a multiple of V (W = k·V): a window closes at every k-th validation's own step, and that validation evaluates
//    it (the step's gap comes before its validation); the other validations find no window and change nothing. The
//    evidence is fresh: the evaluated window ends at the evaluation step.
//  - W < V: more windows close than validations read, so unevaluated windows pile up and every decision reads an
//    older one (W 5, a validation every 10 steps: the decision at step 180 reads window 18, which ended at step 90).
//  - W > V, not a multiple: a window waits for the next validation, less than V gaps.
// Pure: the replay (gateReplay.ts) feeds it the gate's evidence and the gaps it observed between validations.
import type { GateEvidence } from '../retirementGate';

/** The most frequent count of gaps observed between two consecutive validations (ties: the smaller); null if none. */
export function typicalGapsPerValidation(counts: readonly number[]): number | null {
  const tally = new Map<number, number>();
  for (const c of counts) if (c > 0) tally.set(c, (tally.get(c) ?? 0) + 1);
  let best: number | null = null;
  let bestCount = 0;
  for (const [c, n] of tally) {
    if (n > bestCount || (n === bestCount && best !== null && c < best)) {
      best = c;
      bestCount = n;
    }
  }
  return best;
}

const steps = (n: number) => `${n} step${n === 1 ? '' : 's'}`;

/** "window 18 (steps 86–90)": an evaluated window by its ordinal and the steps of its gaps. */
export function windowWords(e: Pick<GateEvidence, 'window_index' | 'window_start_step' | 'window_end_step'>): string {
  const steps =
    e.window_start_step === null
      ? `ending at step ${e.window_end_step}`
      : e.window_start_step === e.window_end_step
        ? `step ${e.window_end_step}`
        : `steps ${e.window_start_step}–${e.window_end_step}`;
  return `window ${e.window_index} (${steps})`;
}

/** "this evidence is 90 steps old" / "this evidence is fresh (the window closed at this step)". */
export function ageWords(ageSteps: number): string {
  return ageSteps <= 0
    ? 'this evidence is fresh (the window closed at this step)'
    : `this evidence is ${steps(ageSteps)} old`;
}

/**
 * The decision in one line: "retired at 180 on window 18 (steps 86–90) against window 17; this evidence is 90 steps
 * old". `retired` false: the latest evaluation, which kept the teacher.
 */
export function evidenceHeadline(e: GateEvidence, retired: boolean): string {
  const against =
    e.previous_window_index === null ? 'with no window before it' : `against window ${e.previous_window_index}`;
  const what = retired ? `retired at ${e.step}` : `kept the teacher at ${e.step}, its latest evaluation,`;
  return `${what} on ${windowWords(e)} ${against}; ${ageWords(e.age_steps)}`;
}

/**
 * The warning a replay gives when some evaluation read a window that had closed before its validation step, with the
 * W that would read fresh windows; null when every evaluation was fresh. `cited` is the evaluation quoted (the
 * decision's, else the stalest).
 */
export function cadenceWarning(args: {
  windowSize: number;
  /** gaps between consecutive validations, typically (typicalGapsPerValidation) */
  gapsPerValidation: number | null;
  /** evaluations whose window ended before their validation step, of all evaluations */
  stale: number;
  evaluations: number;
  cited: GateEvidence;
}): string | null {
  const { windowSize: w, gapsPerValidation: v, stale, evaluations, cited } = args;
  if (stale === 0) return null;
  const quote =
    `${stale} of ${evaluations} evaluations read a window that had closed before their validation ` +
    `(at step ${cited.step} the gate read ${windowWords(cited)}, ${steps(cited.age_steps)} old)`;
  if (v === null) return `${quote}: each validation evaluates the oldest window not yet evaluated.`;
  if (w % v === 0) {
    return (
      `${quote}: W = ${w} is a multiple of the ${v} gaps between validations, so the log’s validation steps are ` +
      `offset from the windows’ last gap steps (where the gaps and validations start).`
    );
  }
  const multiples = [2, 3].map((k) => k * v).join(', ');
  return (
    `${quote}: windows close every W = ${w} gaps but a validation comes every ${v} gaps, and each validation ` +
    `evaluates the oldest window not yet evaluated${w < v ? ', so unevaluated windows pile up' : ''}. ` +
    `W = ${v} (or a multiple: ${multiples}) would evaluate each window at the validation that closes it.`
  );
}
