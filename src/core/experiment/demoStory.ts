// The one sentence under the Overview's chart, computed from the recordings (never written by hand): when the
// teacher retired, and how the retired student ended against OPD throughout, GRPO alone and the teacher's S_T.
import type { RunSummary } from './summary';

export interface StoryArms {
  /** retire-shell: GRPO + OPD under the adaptive gate */
  retire: RunSummary;
  /** opd-shell: OPD throughout (the teacher never retires) */
  opd: RunSummary;
  /** grpo-shell: GRPO alone (no teacher) */
  grpo: RunSummary;
}

/** A rate in 0…1 as "85.7 %" (one decimal). */
export const percent = (x: number | null | undefined): string =>
  typeof x === 'number' && Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '–';

/**
 * "The teacher retired at student step 105 (S_T 83.6 %); by the end the retired student passed OPD throughout on
 * the test tasks: 85.7 % vs 83.4 % (GRPO alone: 60.9 %)." The verb follows the numbers as printed.
 */
export function demoStorySentence({ retire, opd, grpo }: StoryArms): string {
  const a = percent(retire.test.successRate);
  const b = percent(opd.test.successRate);
  const verb = a === b ? 'matched' : retire.test.successRate > opd.test.successRate ? 'passed' : 'did not pass';
  const trigger = retire.gate.triggerStep;
  const when =
    trigger === null
      ? `The gate did not retire the teacher in this recording (S_T ${percent(retire.teacherPerformance)})`
      : `The teacher retired at student step ${trigger} (S_T ${percent(retire.teacherPerformance)})`;
  return `${when}; by the end the ${trigger === null ? '' : 'retired '}student ${verb} OPD throughout on the test tasks: ${a} vs ${b} (GRPO alone: ${percent(grpo.test.successRate)}).`;
}
