// Sweeps: a base config × a grid of dotted-key axes × seeds (their comparison table is comparison.ts's).
// Spec format: { "seeds": [0, 1, 2], "axes": { "student.schedule": ["adaptive", "never"], ... },
//               "matchTemperature"?: { "axis": "sft.lambdaObs", "reference": 1, "matched": 0 } }.
// Every axis value is validated by resolving the config it produces, so a typo fails before any training.
// matchTemperature (the ActObs temperature control): for every seed (and every value of the other axes) the run with
// axis = reference runs first, and its probe argument-token entropy (summary.probeEntropy.actionArg) becomes
// evaluation.matchArgEntropy of the run with axis = matched, which then reports success at the matching temperature.
import { z } from 'zod';
import { ConfigError, configKeys, resolveConfig, type ExperimentConfig } from './config';
import { MAX_SEED } from './numberText';
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
  seeds: z.array(z.number().int().min(0).max(MAX_SEED)).min(1, { message: 'expected at least one seed' }),
  axes: z.record(z.string(), z.array(z.unknown()).min(1, { message: 'expected at least one value' })),
  matchTemperature: z.strictObject({ axis: z.string(), reference: z.unknown(), matched: z.unknown() }).optional(),
});

/** More runs than this in one sweep or queue is almost surely a typo in the seeds or an axis (the CLI's sweep and the
 * tab's queue refuse it alike, before any config is resolved or any population planned). */
export const MAX_SWEEP_RUNS = 1000;

/** Why a sweep of these seeds × axes has too many runs (naming the count and what makes it), or null. */
export function sweepSizeRefusal(
  seeds: readonly unknown[],
  axes: Readonly<Record<string, readonly unknown[]>>,
): string | null {
  const factors = Object.entries(axes).map(([k, vs]) => ({ what: `${vs.length} values of ${k}`, n: vs.length }));
  const runs = factors.reduce((a, f) => a * f.n, seeds.length);
  if (runs <= MAX_SWEEP_RUNS) return null;
  const made = [`${seeds.length} seed${seeds.length === 1 ? '' : 's'}`, ...factors.map((f) => f.what)].join(' × ');
  return `${runs} runs (${made}), at most ${MAX_SWEEP_RUNS} in one sweep (split it into several)`;
}

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
  const tooMany = sweepSizeRefusal(parsed.data.seeds, parsed.data.axes);
  if (tooMany) throw new ConfigError([`sweep: ${tooMany}`], source);
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

/**
 * The cartesian product of the axes (first axis outermost), each point run for every seed. Each point's config is
 * resolved once (all its axis values in one tree); its seeds are copies of it with the seed set (parseSweepSpec checked
 * the seeds' range), so a queue of 1000 runs resolves one config per point, not one per axis per run.
 */
export function expandSweep(base: ExperimentConfig, spec: SweepSpec): SweepRun[] {
  let points: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(spec.axes)) {
    points = points.flatMap((p) => values.map((v) => ({ ...p, [key]: v })));
  }
  const runs: SweepRun[] = [];
  for (const point of points) {
    const tree: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(point)) setPath(tree, k, v);
    const cfg = resolveConfig(tree, base);
    for (const seed of spec.seeds) {
      const label = [...Object.entries(point).map(([k, v]) => `${k}=${String(v)}`), `seed=${seed}`].join(' ');
      runs.push({ label, point, seed, config: { ...structuredClone(cfg), seed } });
    }
  }
  return runs;
}

/** Set a dotted key's value in a partial config tree (`a.b` = 1 → { a: { b: 1 } }), beside what it holds. */
function setPath(tree: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = tree;
  for (const p of parts.slice(0, -1)) {
    const next = node[p];
    node = (typeof next === 'object' && next !== null ? next : (node[p] = {})) as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
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
  exec: (run: SweepRun, index: number) => Promise<RunSummary | null>,
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
    // null: not run here (a sweep's lane handed it to another process)
    if (summary === null) continue;
    done.push({ run, summary, i });
    const h = summary.probeEntropy?.actionArg;
    if (match && isRef(r) && summary.status === 'completed' && h !== undefined && Number.isFinite(h))
      targets.set(matchKey(r, match.axis), h);
    if (options.stop?.(summary)) break;
  }
  return done.sort((a, b) => a.i - b.i).map(({ run, summary }) => ({ run, summary }));
}
