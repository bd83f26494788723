// One line of a verl file-logger log of a long RetireOPD run (≈2.5 kB: 55 actor metrics, the gap under skillsd/,
// the gate's metrics before retirement, a validation every 10 steps): the big logs the replay benchmarks read
// (bench/replayMemory.ts in Node, test/app/measureReplayInTab.ts in the tab).

/** The line of step k. */
export function verlLine(k: number): string {
  const data: Record<string, number | string> = {};
  for (let m = 0; m < 55; m++) data[`actor/metric_${m}/mean`] = Math.sin(k * 0.01 + m) * 0.5;
  data['skillsd/teacher_student_gap_mean'] = -0.6 * Math.exp(-k / 20_000) - 0.01 * Math.sin(k);
  data['retire_opd/k_window_mean'] = 'NaN';
  data['retire_opd/alignment_progress'] = 'NaN';
  data['retire_opd/trigger_step'] = -1;
  data['retire_opd/teacher_forward_skipped'] = 0;
  if (k % 10 === 0) data['val/success_rate'] = Math.min(0.95, 0.1 + k / 100_000);
  return `${JSON.stringify({ step: k, data }).replace(/"NaN"/g, 'NaN')}\n`;
}
