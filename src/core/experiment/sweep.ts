// Sweeps: a base config × a grid of dotted-key axes × seeds, and the comparison table of their summaries.
// Spec format: { "seeds": [0, 1, 2], "axes": { "student.schedule": ["adaptive", "never"], ... } }.
// Every axis value is validated by resolving the config it produces, so a typo fails before any training.
import { z } from 'zod';
import { ConfigError, configKeys, resolveConfig, type ExperimentConfig } from './config';
import type { RunSummary } from './summary';

export interface SweepSpec {
  seeds: number[];
  /** dotted config key → values, in the order given */
  axes: Record<string, unknown[]>;
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
          ? `sweep: unknown key(s) ${i.keys.join(', ')} (valid keys: seeds, axes)`
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
  if (errors.length) throw new ConfigError(errors, source);
  return parsed.data;
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

export interface ComparisonRow {
  point: Record<string, unknown>;
  seeds: number;
  successMean: number;
  /** sample standard deviation over seeds (0 with one seed) */
  successStd: number;
  /** trigger steps of the seeds (null = never retired) */
  triggerSteps: (number | null)[];
  teacherForwardsSavedMean: number;
  wallSecondsMean: number;
}

function meanStd(xs: readonly number[]): [number, number] {
  const m = xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  if (xs.length < 2) return [m, 0];
  const v = xs.reduce((a, b) => a + (b - m) * (b - m), 0) / (xs.length - 1);
  return [m, Math.sqrt(v)];
}

/** Group run summaries by sweep point (over seeds) in first-seen order. */
export function compareRuns(runs: readonly { point: Record<string, unknown>; summary: RunSummary }[]): ComparisonRow[] {
  const groups = new Map<string, { point: Record<string, unknown>; summaries: RunSummary[] }>();
  for (const r of runs) {
    const key = JSON.stringify(r.point);
    const g = groups.get(key) ?? { point: r.point, summaries: [] };
    g.summaries.push(r.summary);
    groups.set(key, g);
  }
  return [...groups.values()].map(({ point, summaries }) => {
    const [successMean, successStd] = meanStd(summaries.map((s) => s.test.successRate));
    return {
      point,
      seeds: summaries.length,
      successMean,
      successStd,
      triggerSteps: summaries.map((s) => s.gate.triggerStep),
      teacherForwardsSavedMean: meanStd(summaries.map((s) => s.gate.teacherForwardSkipped))[0],
      wallSecondsMean: meanStd(summaries.map((s) => s.wallSeconds))[0],
    };
  });
}

/** A Markdown table: one row per sweep point; success as mean ± sample std over seeds (in %). */
export function formatComparisonTable(rows: readonly ComparisonRow[]): string {
  const axisKeys = [...new Set(rows.flatMap((r) => Object.keys(r.point)))];
  const header = [
    ...axisKeys,
    'seeds',
    'test success % (mean ± std)',
    'trigger step',
    'teacher forwards saved',
    'wall s',
  ];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const trig = r.triggerSteps.map((t) => (t === null ? '–' : String(t))).join(', ');
    lines.push(
      `| ${[
        ...axisKeys.map((k) => String(r.point[k] ?? '')),
        String(r.seeds),
        `${(100 * r.successMean).toFixed(1)} ± ${(100 * r.successStd).toFixed(1)}`,
        trig,
        r.teacherForwardsSavedMean.toFixed(1),
        r.wallSecondsMean.toFixed(1),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
