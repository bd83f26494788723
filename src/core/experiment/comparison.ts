// Comparing finished runs: each run's validation curve and yardstick (steps to 0.9·S_T), and the comparison table of
// a sweep — mean ± 95% CI per configuration over seeds — as `npm run sweep` writes comparison.md and the tab's compare
// view shows it (both call this code, so they agree to the digit on the same runs).
import { studentTQuantile } from './seedStatistics';
import type { RunSummary } from './summary';
import { METRIC } from '../runLog/metricKeys';
import { markdownText } from './exportText';

/** One point of a run's validation curve: student step and the gate's validation score there. */
export interface CurvePoint {
  step: number;
  score: number;
}

/** The student's validation curve from its metrics lines: the steps that logged `val/success_rate`. */
export function validationCurve(lines: Iterable<Readonly<Record<string, unknown>>>): CurvePoint[] {
  const out: CurvePoint[] = [];
  for (const m of lines) {
    const score = m[METRIC.valSuccessRate];
    if (typeof m.step === 'number' && typeof score === 'number') out.push({ step: m.step, score });
  }
  return out;
}

/**
 * Each run's yardstick for "steps to 0.9·S_T": its own S_T, else (pure GRPO measures none) the mean S_T of the
 * other runs with the same environment config (`envKey`, e.g. JSON of config.env: same universe, same teacher;
 * the negative control's universe has its own S_T). The CLI's sweep and the tab's compare view both use this.
 */
export function withYardsticks<T extends { summary: RunSummary; envKey: string }>(
  runs: readonly T[],
): (T & { yardstick: number | null })[] {
  const byEnv = new Map<string, number[]>();
  for (const r of runs)
    if (r.summary.teacherPerformance !== null)
      byEnv.set(r.envKey, [...(byEnv.get(r.envKey) ?? []), r.summary.teacherPerformance]);
  const mean = (xs: readonly number[] | undefined): number | null =>
    xs && xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
  return runs.map((r) => ({ ...r, yardstick: r.summary.teacherPerformance ?? mean(byEnv.get(r.envKey)) }));
}

/** A finished run for the comparison: its sweep point, summary and (optionally) its validation curve. */
export interface ComparedRun {
  point: Record<string, unknown>;
  summary: RunSummary;
  curve?: readonly CurvePoint[];
  /**
   * the S_T that "steps to 0.9·S_T" is measured against when the run has none of its own (pure GRPO never
   * measures one): the sweep passes the S_T its other runs measured with the same teacher and environment
   */
  yardstick?: number | null;
}

export interface ComparisonRow {
  point: Record<string, unknown>;
  seeds: number;
  successMean: number;
  /** sample standard deviation over seeds (0 with one seed) */
  successStd: number;
  /** half-width of the 95 % confidence interval of the mean (Student t, seeds − 1 dof; 0 with one seed) */
  successCi95: number;
  /**
   * per seed: the first student step whose validation score reached 0.9·S_T (null = never within the budget, or
   * no curve/S_T known)
   */
  stepsToTarget: (number | null)[];
  /** trigger steps of the seeds (null = never retired) */
  triggerSteps: (number | null)[];
  teacherForwardsSavedMean: number;
  wallSecondsMean: number;
  /** mean probe argument-token entropy at T = 1 (nats; NaN when not evaluated) */
  argEntropyMean: number;
  /** runs of this point evaluated at a matched temperature (summary.matchedTemperature), over seeds */
  matched: {
    seeds: number;
    temperatureMean: number;
    argEntropyMean: number;
    successMean: number;
    successStd: number;
  } | null;
}

/**
 * two-sided 97.5 % quantiles of Student's t for 1..10 degrees of freedom, to the 3 decimals the tables were built
 * with; beyond 10 computed (seedStatistics.ts: t_{0.975, 11} = 2.201, not the normal 1.96)
 */
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];

/** half-width of the 95 % interval of a mean from its sample std over n values */
export function ci95(std: number, n: number): number {
  if (n < 2) return 0;
  return ((T975[n - 2] ?? studentTQuantile(0.975, n - 1)) * std) / Math.sqrt(n);
}

/** The gate's target fraction of S_T that "steps to target" measures. */
export const TARGET_FRACTION = 0.9;

/** first step of a validation curve at or above TARGET_FRACTION·S_T; null when never or unknown */
export function stepsToTarget(
  curve: readonly CurvePoint[] | undefined,
  teacherPerformance: number | null,
): number | null {
  if (!curve || teacherPerformance === null || !Number.isFinite(teacherPerformance)) return null;
  for (const p of curve) if (p.score >= TARGET_FRACTION * teacherPerformance) return p.step;
  return null;
}

function meanStd(xs: readonly number[]): [number, number] {
  const m = xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  if (xs.length < 2) return [m, 0];
  const v = xs.reduce((a, b) => a + (b - m) * (b - m), 0) / (xs.length - 1);
  return [m, Math.sqrt(v)];
}

/** Group run summaries by sweep point (over seeds) in first-seen order. */
export function compareRuns(runs: readonly ComparedRun[]): ComparisonRow[] {
  const groups = new Map<
    string,
    { point: Record<string, unknown>; summaries: RunSummary[]; reach: (number | null)[] }
  >();
  for (const r of runs) {
    const key = JSON.stringify(r.point);
    const g = groups.get(key) ?? { point: r.point, summaries: [], reach: [] };
    g.summaries.push(r.summary);
    g.reach.push(stepsToTarget(r.curve, r.summary.teacherPerformance ?? r.yardstick ?? null));
    groups.set(key, g);
  }
  return [...groups.values()].map(({ point, summaries, reach }) => {
    const [successMean, successStd] = meanStd(summaries.map((s) => s.test.successRate));
    const m = summaries.flatMap((s) => (s.matchedTemperature ? [s.matchedTemperature] : []));
    const [mSuccess, mStd] = meanStd(m.map((x) => x.successRate));
    const hs = summaries.map((s) => s.probeEntropy?.actionArg ?? NaN);
    return {
      point,
      seeds: summaries.length,
      successMean,
      successStd,
      successCi95: ci95(successStd, summaries.length),
      stepsToTarget: reach,
      triggerSteps: summaries.map((s) => s.gate.triggerStep),
      teacherForwardsSavedMean: meanStd(summaries.map((s) => s.gate.teacherForwardSkipped))[0],
      wallSecondsMean: meanStd(summaries.map((s) => s.wallSeconds))[0],
      argEntropyMean: meanStd(hs)[0],
      matched: m.length
        ? {
            seeds: m.length,
            temperatureMean: meanStd(m.map((x) => x.temperature))[0],
            argEntropyMean: meanStd(m.map((x) => x.argEntropy))[0],
            successMean: mSuccess,
            successStd: mStd,
          }
        : null,
    };
  });
}

/** The comparison table as cells of text, header first: comparison.md (formatComparisonTable) and the tab's HTML
 * table render these cells; the tab's CSV puts the same rows' numbers in columns. */
export interface ComparisonTable {
  header: string[];
  rows: string[][];
}

/**
 * The comparison table's cells: one row per sweep point; success as mean ± the 95 % interval half-width over seeds (in %; – for a
 * single seed), the steps each seed needed to reach 0.9·S_T on validation (– = never), trigger steps (– = never
 * retired). When some point was evaluated at a matched temperature (sweep.matchTemperature), two more columns: the
 * probe argument entropy at T = 1 and "at matched temperature: T, arg entropy, success" (means over seeds; – for points
 * without).
 */
export function comparisonTable(rows: readonly ComparisonRow[]): ComparisonTable {
  const axisKeys = [...new Set(rows.flatMap((r) => Object.keys(r.point)))];
  const withMatch = rows.some((r) => r.matched !== null);
  const header = [
    ...axisKeys,
    'seeds',
    'test success % (mean ± 95% CI)',
    `steps to ${TARGET_FRACTION}·S_T`,
    'trigger step',
    'teacher forwards saved',
    'wall s',
    ...(withMatch
      ? ['arg entropy at T=1 (nats)', 'at matched temperature: T, arg entropy, success % (mean ± std)']
      : []),
  ];
  const body = rows.map((r) => [
    ...axisKeys.map((k) => String(r.point[k] ?? '')),
    String(r.seeds),
    // one seed has no interval: "± –", not a reassuring "± 0.0"
    `${(100 * r.successMean).toFixed(1)} ± ${r.seeds < 2 ? '–' : (100 * r.successCi95).toFixed(1)}`,
    r.stepsToTarget.map((t) => (t === null ? '–' : String(t))).join(', '),
    r.triggerSteps.map((t) => (t === null ? '–' : String(t))).join(', '),
    r.teacherForwardsSavedMean.toFixed(1),
    r.wallSecondsMean.toFixed(1),
    ...(withMatch
      ? [
          Number.isFinite(r.argEntropyMean) ? r.argEntropyMean.toFixed(3) : '–',
          r.matched
            ? `T ${r.matched.temperatureMean.toFixed(3)}, ${r.matched.argEntropyMean.toFixed(3)}, ${(100 * r.matched.successMean).toFixed(1)} ± ${(100 * r.matched.successStd).toFixed(1)}`
            : '–',
        ]
      : []),
  ]);
  return { header, rows: body };
}

/** The comparison table as Markdown (comparison.md), rendered from comparisonTable's cells. */
export function formatComparisonTable(rows: readonly ComparisonRow[]): string {
  const { header, rows: body } = comparisonTable(rows);
  const line = (cells: readonly string[]) => `| ${cells.map(markdownText).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...body.map(line)].join('\n');
}

/**
 * What a sweep compares, for comparison.md: each preset's description (named when there are several), as literal
 * text (a preset file's name or description is the user's text: markdownText).
 */
export function sweepAbout(presets: readonly { name: string; description: string }[]): string {
  return presets
    .map((p) => `${presets.length > 1 ? `**${markdownText(p.name)}**: ` : ''}${markdownText(p.description)}`)
    .join('\n\n');
}

/** The text of comparison.md: a heading naming the sweep (as literal text), what it compares, the table. */
export function comparisonDocument(title: string, about: string, table: string): string {
  return `# Sweep ${markdownText(title)}\n\n${about}\n\n${table}\n`;
}
