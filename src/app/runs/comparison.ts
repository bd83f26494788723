// Comparing stored runs: which config keys the runs differ in (besides the seed), each run's sweep point, the
// comparison table that `npm run sweep` writes to comparison.md (the core's compareRuns + formatComparisonTable, on
// the same summaries in the same order, so both agree to the digit), a CSV of it, and mean ± band series over the
// seeds of one point (the smoothing every chart shares is core's emaSmoothing.ts).
import Papa from 'papaparse';
import { configKeys, getConfigValue } from '../../core/experiment/config';
import {
  comparisonDocument,
  compareRuns,
  comparisonTable,
  formatComparisonTable,
  sweepAbout,
  withYardsticks,
  type ComparisonRow,
  type ComparisonTable,
  type CurvePoint,
} from '../../core/experiment/comparison';
import { CSV_FORMULA_START } from '../../core/experiment/exportText';
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
  const { withSummary, keys } = summarised(runs);
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

/** The runs with a summary, in sweep order, and the keys they vary. */
function summarised(runs: readonly RunRecord[]) {
  const withSummary = sweepOrder(runs).filter((r): r is RunRecord & { summary: RunSummary } => r.summary !== null);
  return { withSummary, keys: variedKeys(withSummary) };
}

/** The Markdown table of comparison.md (without its heading). */
export function comparisonMarkdown(runs: readonly RunRecord[], curves?: RunCurves): string {
  return formatComparisonTable(comparisonRows(runs, curves));
}

/** The same table as cells (header first), for the HTML table: rendered from the rows, never parsed back from text. */
export function comparisonCells(runs: readonly RunRecord[], curves?: RunCurves): ComparisonTable {
  return comparisonTable(comparisonRows(runs, curves));
}

/**
 * comparison.md as `npm run sweep` writes it: "# Sweep TITLE", what the presets are (their descriptions), the table.
 * TITLE is the runs' preset names joined by "+" in sweep order, as the CLI names a sweep of several presets.
 */
export function comparisonMarkdownFile(
  runs: readonly RunRecord[],
  curves: RunCurves | undefined,
  describe: (preset: string) => string | null,
): string {
  const names = [...new Set(summarised(runs).withSummary.map((r) => r.preset))];
  const presets = names.flatMap((name) => {
    const description = describe(name);
    return description === null ? [] : [{ name, description }];
  });
  return comparisonDocument(names.join('+'), sweepAbout(presets), comparisonMarkdown(runs, curves));
}

/**
 * A number for a CSV cell: empty when not finite (a spreadsheet reads an empty cell as missing). It stays a number, so
 * the CSV's formula rule (text cells only) leaves a negative value as `-0.5`.
 */
const csvNumber = (x: number | null | undefined, digits = 6): number | '' =>
  x === null || x === undefined || !Number.isFinite(x) ? '' : Number(x.toFixed(digits));

/**
 * The comparison as numbers, one row per point: the axis values, n (seeds), test success as a fraction — mean, sample
 * std, and the 95 % interval's lo and hi (empty with one seed) — then one column per seed for the steps to 0.9·S_T
 * and one per seed for the trigger step (empty = never, or the point has no run with that seed), the mean teacher
 * forwards saved and the mean wall seconds. The same numbers as the Markdown table, unrounded, in columns.
 * Text cells (an axis value such as `=1+2`, a key) that a spreadsheet would run as a formula are written as text
 * (CSV_FORMULA_START: a leading ' and quotes); number cells, negative ones included, stay numbers.
 */
export function comparisonCsv(runs: readonly RunRecord[], curves?: RunCurves): string {
  const { withSummary, keys } = summarised(runs);
  const rows = comparisonRows(runs, curves);
  // the seeds of each point, in the order compareRuns met them (its per-seed arrays follow that order)
  const seedsOf = new Map<string, number[]>();
  for (const r of withSummary) {
    const k = JSON.stringify(pointOf(r, keys));
    seedsOf.set(k, [...(seedsOf.get(k) ?? []), r.seed]);
  }
  const seeds = [...new Set(withSummary.map((r) => r.seed))].sort((a, b) => a - b);
  const axisKeys = [...new Set(rows.flatMap((r) => Object.keys(r.point)))];
  const header = [
    ...axisKeys,
    'n',
    'test_success_mean',
    'test_success_std',
    'test_success_ci95_lo',
    'test_success_ci95_hi',
    ...seeds.map((s) => `steps_to_target_seed${s}`),
    ...seeds.map((s) => `trigger_step_seed${s}`),
    'teacher_forwards_saved_mean',
    'wall_s_mean',
  ];
  const body = rows.map((r) => {
    const own = seedsOf.get(JSON.stringify(r.point)) ?? [];
    const perSeed = (values: readonly (number | null)[]) =>
      seeds.map((s) => {
        const i = own.indexOf(s);
        return i < 0 ? '' : csvNumber(values[i]);
      });
    const interval =
      r.seeds < 2 ? ['', ''] : [csvNumber(r.successMean - r.successCi95), csvNumber(r.successMean + r.successCi95)];
    return [
      ...axisKeys.map((k) => {
        const v = r.point[k];
        return v === undefined ? '' : typeof v === 'string' || typeof v === 'number' ? v : JSON.stringify(v);
      }),
      r.seeds,
      csvNumber(r.successMean),
      csvNumber(r.successStd),
      ...interval,
      ...perSeed(r.stepsToTarget),
      ...perSeed(r.triggerSteps),
      csvNumber(r.teacherForwardsSavedMean),
      csvNumber(r.wallSecondsMean),
    ];
  });
  return Papa.unparse([header, ...body], { escapeFormulae: CSV_FORMULA_START });
}

/**
 * Where two series (sorted by x) stop being identical: the last x of their common prefix of equal points, or null
 * when they differ from their first point. Equal throughout: the last shared x. Used to draw a series that would hide
 * under another dashed, with a note "identical until step k".
 */
export function identicalUntil(
  a: readonly SeriesPoint[],
  b: readonly SeriesPoint[],
): { until: number; whole: boolean } | null {
  let last: number | null = null;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const p = a[i]!;
    const q = b[i]!;
    if (p.x !== q.x || p.y !== q.y) return last === null ? null : { until: last, whole: false };
    last = p.x;
  }
  return last === null ? null : { until: last, whole: a.length === b.length };
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
