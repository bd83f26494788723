// Comparing stored runs: which config keys the runs differ in (besides the seed), each run's sweep point, the
// comparison table that `npm run sweep` writes to comparison.md (the core's compareRuns + formatComparisonTable, on
// the same summaries in the same order, so both agree to the digit), a CSV of it, TensorBoard's EMA smoothing, and
// mean ± band series over the seeds of one point.
import Papa from 'papaparse';
import { configKeys, getConfigValue } from '../../core/experiment/config';
import {
  compareRuns,
  formatComparisonTable,
  withYardsticks,
  type ComparisonRow,
  type CurvePoint,
} from '../../core/experiment/comparison';
import type { RunSummary } from '../../core/experiment/summary';
import type { SeriesPoint } from '../charts/downsampleSeries';
import type { RunRecord } from './runRecord';

/** Keys never treated as an ablation axis: the run's name, its seed, and where it ran. */
const NOT_AXES = new Set(['name', 'seed', 'runtime.backend', 'runtime.checkpointEvery', 'runtime.keepCheckpoints']);

/** Dotted config keys whose values differ between the runs (in the config's declaration order). */
export function variedKeys(runs: readonly Pick<RunRecord, 'config'>[]): string[] {
  if (runs.length < 2) return [];
  return configKeys().filter((k) => {
    if (NOT_AXES.has(k)) return false;
    const first = JSON.stringify(getConfigValue(runs[0]!.config, k));
    return runs.some((r) => JSON.stringify(getConfigValue(r.config, k)) !== first);
  });
}

/** A run's sweep point: what its queue (or imported sweep) says, else its values of the varied keys. */
export function pointOf(run: Pick<RunRecord, 'config' | 'point'>, keys: readonly string[]): Record<string, unknown> {
  if (run.point && Object.keys(run.point).length > 0) return run.point;
  return Object.fromEntries(keys.map((k) => [k, getConfigValue(run.config, k)]));
}

/** "student.schedule=never" — the label of a point (empty point: "all runs"). */
export function pointLabel(point: Record<string, unknown>): string {
  const parts = Object.entries(point).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return parts.length ? parts.join(' ') : 'all runs';
}

/** Runs in the order a sweep lists them: queue runs by their place in the queue, then the rest by creation. */
function sweepOrder<T extends Pick<RunRecord, 'queueId' | 'queueIndex' | 'createdAt'>>(runs: readonly T[]): T[] {
  return [...runs].sort(
    (a, b) =>
      (a.queueId ?? '').localeCompare(b.queueId ?? '') ||
      (a.queueIndex ?? Infinity) - (b.queueIndex ?? Infinity) ||
      a.createdAt - b.createdAt,
  );
}

/** Each run's student validation curve (core validationCurve of its student metrics), by run id. */
export type RunCurves = ReadonlyMap<string, readonly CurvePoint[]>;

/**
 * The comparison rows of the runs that have a summary, grouped by point, as the sweep CLI computes them: the same
 * points, curves (for "steps to 0.9·S_T") and S_T yardsticks (withYardsticks), so both tables agree to the digit.
 */
function comparisonRows(runs: readonly RunRecord[], curves: RunCurves = new Map()): ComparisonRow[] {
  const withSummary = sweepOrder(runs).filter((r): r is RunRecord & { summary: RunSummary } => r.summary !== null);
  const keys = variedKeys(withSummary);
  return compareRuns(
    withYardsticks(
      withSummary.map((r) => ({
        point: pointOf(r, keys),
        summary: r.summary,
        curve: curves.get(r.id) ?? [],
        envKey: JSON.stringify(r.config.env),
      })),
    ),
  );
}

/** The Markdown table of comparison.md (without its heading). */
export function comparisonMarkdown(runs: readonly RunRecord[], curves?: RunCurves): string {
  return formatComparisonTable(comparisonRows(runs, curves));
}

/** The same table as CSV (the Markdown cells, one row per point). */
export function comparisonCsv(runs: readonly RunRecord[], curves?: RunCurves): string {
  return Papa.unparse(markdownCells(comparisonMarkdown(runs, curves)));
}

/** The cells of a Markdown table (header first, separator row dropped). */
export function markdownCells(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|(-+\|)+$/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
}

/**
 * TensorBoard's smoothing: an exponential moving average with weight w ∈ [0, 1) over the finite points, debiased
 * (divided by 1 − w^n) so the start is not pulled towards 0. w = 0 returns the points unchanged.
 */
export function emaSmooth(points: readonly SeriesPoint[], weight: number): SeriesPoint[] {
  if (weight <= 0) return [...points];
  const w = Math.min(weight, 0.999);
  let last = 0;
  let n = 0;
  return points.map((p) => {
    last = last * w + (1 - w) * p.y;
    n += 1;
    return { x: p.x, y: last / (1 - w ** n) };
  });
}

export interface BandPoint {
  x: number;
  mean: number;
  /** sample std over the runs that have this x (0 with one run) */
  std: number;
  /** [mean − std, mean + std], what the band draws */
  band: [number, number];
  runs: number;
}

/** Mean ± sample std per x over several runs' series (an x only some runs have uses those runs). */
export function meanBand(series: readonly (readonly SeriesPoint[])[]): BandPoint[] {
  const byX = new Map<number, number[]>();
  for (const s of series) for (const p of s) (byX.get(p.x) ?? byX.set(p.x, []).get(p.x)!).push(p.y);
  return [...byX.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([x, ys]) => {
      const mean = ys.reduce((a, b) => a + b, 0) / ys.length;
      const std = ys.length < 2 ? 0 : Math.sqrt(ys.reduce((a, y) => a + (y - mean) ** 2, 0) / (ys.length - 1));
      return { x, mean, std, band: [mean - std, mean + std] as [number, number], runs: ys.length };
    });
}

/** Groups of runs by point (first-seen order), for one line + band per point. */
export function groupByPoint(
  runs: readonly RunRecord[],
  keys: readonly string[],
): { label: string; runs: RunRecord[] }[] {
  const groups = new Map<string, { label: string; runs: RunRecord[] }>();
  for (const r of sweepOrder(runs)) {
    const point = pointOf(r, keys);
    const key = JSON.stringify(point);
    const g = groups.get(key) ?? { label: pointLabel(point), runs: [] };
    g.runs.push(r);
    groups.set(key, g);
  }
  return [...groups.values()];
}
