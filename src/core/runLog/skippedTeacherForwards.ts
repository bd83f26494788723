// Skipped teacher forwards in a student log, in either of its two spellings. The lab now logs the public code's
// per-step flag `retire_opd/teacher_forward_skipped` (1: this step's teacher forward was skipped, else 0) and its
// running count as `retire_opd/teacher_forwards_skipped_total`. Logs written before held the running count under
// the flag's name (and no total): read in step order, such a line's count becomes the total and the flag is 1
// exactly where the count grew. Lines that carry the total are taken as they are, so a log that mixes both (an old
// run resumed by the new trainer) reads through.
import type { MetricsLine } from './trainerEvent';

export const SKIPPED_FLAG = 'retire_opd/teacher_forward_skipped';
export const SKIPPED_TOTAL = 'retire_opd/teacher_forwards_skipped_total';

/**
 * The student lines with the flag and the total in today's meaning. `previousTotal` is the count before the first
 * line (0 for a whole log). Lines without either key are returned as they are; a line is copied only when mapped.
 */
export function withSkippedFlag(lines: readonly MetricsLine[], previousTotal = 0): MetricsLine[] {
  let total = previousTotal;
  return lines.map((line) => {
    const logged = line[SKIPPED_TOTAL];
    if (typeof logged === 'number') {
      if (Number.isFinite(logged)) total = logged;
      return line;
    }
    const count = line[SKIPPED_FLAG];
    if (typeof count !== 'number' || !Number.isFinite(count)) return line;
    const flag = count > total ? 1 : 0;
    total = count;
    return { ...line, [SKIPPED_FLAG]: flag, [SKIPPED_TOTAL]: count };
  });
}
