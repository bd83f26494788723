// Sweeps: a base config × a grid of dotted-key axes × seeds, and the comparison table of their summaries.
// Spec format: { "seeds": [0, 1, 2], "axes": { "student.schedule": ["adaptive", "never"], ... },
//               "matchTemperature"?: { "axis": "sft.lambdaObs", "reference": 1, "matched": 0 } }.
// Every axis value is validated by resolving the config it produces, so a typo fails before any training.
// matchTemperature (the ActObs temperature control): for every seed (and every value of the other axes) the run with
// axis = reference runs first, and its probe argument-token entropy (summary.probeEntropy.actionArg) becomes
// evaluation.matchArgEntropy of the run with axis = matched, which then reports success at the matching temperature.
import { z } from 'zod';
import { ConfigError, configKeys, resolveConfig, type ExperimentConfig } from './config';
import type { RunSummary } from './summary';

export interface TemperatureMatchSpec {
  /** the axis that tells the two arms apart (e.g. "sft.lambdaObs") */
  axis: string;
  /** its value in the arm whose entropy is the target (ActObs: 1) */
  reference: unknown;
  /** its value in the arm sampled at the matching temperature (ActionSFT: 0) */
  matched: unknown;
}

export interface SweepSpec {
  seeds: number[];
  /** dotted config key → values, in the order given */
  axes: Record<string, unknown[]>;
  matchTemperature?: TemperatureMatchSpec;
}

export interface SweepRun {
  /** "student.schedule=never seed=2" — stable, also used for folder names */
  label: string;
  /** axis values of this run (without the seed), for grouping */
  point: Record<string, unknown>;
  seed: number;
  config: ExperimentConfig;
}

const specSchema = z.strictObject({
  seeds: z.array(z.number().int().min(0)).min(1, { message: 'expected at least one seed' }),
  axes: z.record(z.string(), z.array(z.unknown()).min(1, { message: 'expected at least one value' })),
  matchTemperature: z.strictObject({ axis: z.string(), reference: z.unknown(), matched: z.unknown() }).optional(),
});

function treeFor(key: string, value: unknown): Record<string, unknown> {
  return key
    .split('.')
    .reverse()
    .reduce<unknown>((acc, k) => ({ [k]: acc }), value) as Record<string, unknown>;
}

/** Validate a sweep spec against a base config (each axis key must exist, each value must be valid there). */
export function parseSweepSpec(raw: unknown, base: ExperimentConfig, source = 'sweep'): SweepSpec {
  const parsed = specSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) =>
        i.code === 'unrecognized_keys'
          ? `sweep${i.path.length ? `.${i.path.map(String).join('.')}` : ''}: unknown key(s) ${i.keys.join(', ')} (valid keys: ${
              i.path.length ? 'axis, reference, matched' : 'seeds, axes, matchTemperature'
            })`
          : `sweep.${i.path.map(String).join('.')}: ${i.message}`,
      ),
      source,
    );
  }
  const valid = configKeys();
  const errors: string[] = [];
  for (const [key, values] of Object.entries(parsed.data.axes)) {
    if (!valid.includes(key)) {
      errors.push(`sweep.axes: unknown key "${key}" (valid keys: ${valid.join(', ')})`);
      continue;
    }
    if (key === 'seed') errors.push('sweep.axes: use sweep.seeds for seeds, not an axis');
    for (const v of values) {
      try {
        resolveConfig(treeFor(key, v), base, source);
      } catch (e) {
        if (e instanceof ConfigError)
          errors.push(...e.messages.map((m) => `sweep.axes[${key}] value ${JSON.stringify(v)}: ${m}`));
        else throw e;
      }
    }
  }
  const match = parsed.data.matchTemperature;
  if (match) {
    const values = parsed.data.axes[match.axis];
    const has = (v: unknown): boolean => values?.some((x) => JSON.stringify(x) === JSON.stringify(v)) ?? false;
    if (!values) {
      errors.push(
        `sweep.matchTemperature.axis: "${match.axis}" is not an axis of this sweep (axes: ${Object.keys(parsed.data.axes).join(', ') || 'none'})`,
      );
    } else {
      for (const k of ['reference', 'matched'] as const) {
        if (!has(match[k]))
          errors.push(
            `sweep.matchTemperature.${k}: ${JSON.stringify(match[k])} is not a value of axis ${match.axis} (values: ${values.map((v) => JSON.stringify(v)).join(', ')})`,
          );
      }
      if (JSON.stringify(match.reference) === JSON.stringify(match.matched))
        errors.push('sweep.matchTemperature: reference and matched must differ');
    }
  }
  if (errors.length) throw new ConfigError(errors, source);
  const { matchTemperature, ...rest } = parsed.data;
  return matchTemperature ? { ...rest, matchTemperature } : rest;
}

/** The cartesian product of the axes (first axis outermost), each point run for every seed. */
export function expandSweep(base: ExperimentConfig, spec: SweepSpec): SweepRun[] {
  let points: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(spec.axes)) {
    points = points.flatMap((p) => values.map((v) => ({ ...p, [key]: v })));
  }
  const runs: SweepRun[] = [];
  for (const point of points) {
    for (const seed of spec.seeds) {
      let cfg = base;
      for (const [k, v] of Object.entries(point)) cfg = resolveConfig(treeFor(k, v), cfg);
      cfg = resolveConfig({ seed }, cfg);
      const label = [...Object.entries(point).map(([k, v]) => `${k}=${String(v)}`), `seed=${seed}`].join(' ');
      runs.push({ label, point, seed, config: cfg });
    }
  }
  return runs;
}

/** What the reference run of a matched run is keyed by: its seed and every axis value except the match axis. */
function matchKey(run: SweepRun, axis: string): string {
  const { [axis]: _omit, ...others } = run.point;
  return JSON.stringify([run.seed, others]);
}

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Run every point of a sweep through `exec` (one at a time) and return the results in the sweep's order. With
 * spec.matchTemperature, the reference runs go first and each matched run gets evaluation.matchArgEntropy = its
 * reference run's summary.probeEntropy.actionArg (same seed, same other axis values); when that reference did not
 * complete, the matched run runs without a target and `warn` says why. `stop` (e.g. after an interrupt) ends the
 * sweep early: only the runs done so far are returned.
 */
export async function runSweep(
  runs: readonly SweepRun[],
  spec: SweepSpec,
  exec: (run: SweepRun, index: number) => Promise<RunSummary>,
  options: { warn?: (message: string) => void; stop?: (summary: RunSummary) => boolean } = {},
): Promise<{ run: SweepRun; summary: RunSummary }[]> {
  const match = spec.matchTemperature;
  const isRef = (r: SweepRun): boolean => match !== undefined && sameValue(r.point[match.axis], match.reference);
  const isMatched = (r: SweepRun): boolean => match !== undefined && sameValue(r.point[match.axis], match.matched);
  // reference runs first (stable), then everything else in sweep order
  const order = runs.map((r, i) => ({ r, i })).sort((a, b) => Number(isRef(b.r)) - Number(isRef(a.r)) || a.i - b.i);
  const targets = new Map<string, number>();
  const done: { run: SweepRun; summary: RunSummary; i: number }[] = [];
  for (const [n, { r, i }] of order.entries()) {
    let run = r;
    if (match && isMatched(r)) {
      const target = targets.get(matchKey(r, match.axis));
      if (target === undefined) {
        options.warn?.(
          `${r.label}: its reference run (${match.axis}=${JSON.stringify(match.reference)}) gave no argument entropy; running without temperature matching`,
        );
      } else {
        run = { ...r, config: resolveConfig({ evaluation: { matchArgEntropy: target } }, r.config) };
      }
    }
    const summary = await exec(run, n);
    done.push({ run, summary, i });
    const h = summary.probeEntropy?.actionArg;
    if (match && isRef(r) && summary.status === 'completed' && h !== undefined && Number.isFinite(h))
      targets.set(matchKey(r, match.axis), h);
    if (options.stop?.(summary)) break;
  }
  return done.sort((a, b) => a.i - b.i).map(({ run, summary }) => ({ run, summary }));
}

/** One point of a run's validation curve: student step and the gate's validation score there. */
export interface CurvePoint {
  step: number;
  score: number;
}

/** The student's validation curve from its metrics lines: the steps that logged `val/success_rate`. */
export function validationCurve(lines: Iterable<Readonly<Record<string, unknown>>>): CurvePoint[] {
  const out: CurvePoint[] = [];
  for (const m of lines) {
    const score = m['val/success_rate'];
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

/** two-sided 97.5 % quantiles of Student's t for 1..10 degrees of freedom; 1.96 beyond */
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];

/** half-width of the 95 % interval of a mean from its sample std over n values */
export function ci95(std: number, n: number): number {
  if (n < 2) return 0;
  return ((T975[n - 2] ?? 1.96) * std) / Math.sqrt(n);
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

/**
 * A Markdown table: one row per sweep point; success as mean ± the 95 % interval half-width over seeds (in %), the
 * steps each seed needed to reach 0.9·S_T on validation (– = never), trigger steps (– = never retired). When some point was
 * evaluated at a matched temperature (sweep.matchTemperature), two more columns: the probe argument entropy at T = 1
 * and "at matched temperature: T, arg entropy, success" (means over seeds; – for points without).
 */
export function formatComparisonTable(rows: readonly ComparisonRow[]): string {
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
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const trig = r.triggerSteps.map((t) => (t === null ? '–' : String(t))).join(', ');
    lines.push(
      `| ${[
        ...axisKeys.map((k) => String(r.point[k] ?? '')),
        String(r.seeds),
        `${(100 * r.successMean).toFixed(1)} ± ${(100 * r.successCi95).toFixed(1)}`,
        r.stepsToTarget.map((t) => (t === null ? '–' : String(t))).join(', '),
        trig,
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
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
