// "Where RetireOPD helps": the paired difference RetireOPD − OPD throughout (test success, points, by seed) per cell
// of environment × task world (env.seed, each world with its own teacher: taskWorlds.ts) × teacher error level
// (env.misleadingSkillFraction) — a sparse map. Its cells come from the
// committed held-out pages (shipped as public/outcomes/where-it-helps.json by cli/outcomeFiles.ts) and from the
// user's own stored runs: a RetireOPD run (student.schedule adaptive) and an OPD-throughout run (never) whose
// configs are equal but for the schedule pair up on their seed.
import { z } from 'zod';
import type { OutcomePage } from './outcomePage';
import { seedInterval } from './seedStatistics';
import { intervalWords, signedPoints } from './seedSpread';

/** The shipped file's path under public/. */
export const HELPS_MAP_FILE = 'outcomes/where-it-helps.json';

/** The world of a cell pooled over task worlds (worldPooledCells): not an env.seed. */
export const ACROSS_WORLDS = -1;

const cellSchema = z.strictObject({
  env: z.string(),
  /** the task world: the runs' env.seed (the presets' own world is DEFAULT_WORLD), or ACROSS_WORLDS */
  world: z.number().int().min(ACROSS_WORLDS),
  /** the teacher's error level: the fraction of skill entries that point the wrong way */
  misleadingFraction: z.number().min(0).max(1),
  /** where the numbers come from: a page path, or "your runs" */
  source: z.string(),
  n: z.number().int().min(0),
  /** mean paired difference, points */
  mean: z.number(),
  /** half-width of the 95 % t-interval, points; null where the source gives no interval */
  halfWidth: z.number().nonnegative().nullable(),
  /** per-seed differences where the source lists them */
  perSeed: z.array(z.strictObject({ seed: z.number().int(), difference: z.number() })).nullable(),
  /** why a number is missing or how it was read, in words */
  note: z.string(),
  /** the stored runs behind a cell of the user's own runs (RetireOPD and OPD ids, by seed) */
  runIds: z.array(z.string()),
});
export type HelpsCell = z.infer<typeof cellSchema>;

export const helpsMapSchema = z.strictObject({
  comparison: z.literal('RetireOPD − OPD throughout'),
  unit: z.literal('points'),
  level: z.number(),
  pages: z.array(z.strictObject({ file: z.string(), commit: z.string(), date: z.string() })),
  cells: z.array(cellSchema),
});
export type HelpsMap = z.infer<typeof helpsMapSchema>;

const RETIRE = 'RetireOPD (adaptive gate)';
const RETIRE0 = 'RetireOPD, no misleading skills';
const OPD0 = 'OPD throughout, no misleading skills';

/**
 * A page's cells: at the preset's own misleading fraction, its "RetireOPD − OPD throughout" line (interval and
 * per-seed values as printed); at fraction 0, the two no-misleading arms' means on the same seeds (the page lists
 * no per-seed values for them, so no interval).
 */
export function pageCells(page: OutcomePage, file: string, presetFraction: number, world: number): HelpsCell[] {
  const cells: HelpsCell[] = [];
  const line = page.paired.find((p) => p.arm === 'OPD throughout');
  if (line) {
    cells.push({
      env: page.env,
      world,
      misleadingFraction: presetFraction,
      source: file,
      n: line.n,
      mean: line.mean,
      halfWidth: line.halfWidth,
      perSeed: line.perSeed.map((p) => ({ ...p })),
      note: 'paired by seed, as the page prints it',
      runIds: [],
    });
  }
  const retire = page.rows.find((r) => r.arm === RETIRE);
  const r0 = page.rows.find((r) => r.arm === RETIRE0);
  const o0 = page.rows.find((r) => r.arm === OPD0);
  if (retire && r0 && o0 && r0.n === retire.n && o0.n === retire.n) {
    cells.push({
      env: page.env,
      world,
      misleadingFraction: 0,
      source: file,
      n: r0.n,
      mean: Math.round(10 * (r0.mean - o0.mean)) / 10,
      halfWidth: null,
      perSeed: null,
      note: 'difference of the two arms’ means on the same seeds; the page lists no per-seed values for them, so no interval',
      runIds: [],
    });
  }
  return cells;
}

/**
 * Of several sources' cells per (env, world, fraction), the most informative: one with an interval before one without, then
 * the one with the most seeds, then the later one on ties.
 */
export function bestCells(cells: readonly HelpsCell[]): HelpsCell[] {
  const rank = (c: HelpsCell): [number, number] => [c.halfWidth !== null && c.n >= 2 ? 1 : 0, c.n];
  const best = new Map<string, HelpsCell>();
  for (const c of cells) {
    const key = cellKey(c);
    const held = best.get(key);
    const [ci, cn] = rank(c);
    const [hi, hn] = held ? rank(held) : [-1, -1];
    if (!held || ci > hi || (ci === hi && cn >= hn)) best.set(key, c);
  }
  return [...best.values()].sort(
    (a, b) => a.env.localeCompare(b.env) || a.world - b.world || a.misleadingFraction - b.misleadingFraction,
  );
}

/**
 * Per environment and level measured (with an interval) in at least two task worlds, the cell pooled over worlds:
 * the mean of the worlds' mean differences with a 95 % t-interval over worlds (n counts worlds) — the world is the
 * unit a claim about the method generalises over. Its world is ACROSS_WORLDS; no per-seed values.
 */
export function worldPooledCells(cells: readonly HelpsCell[], source: string): HelpsCell[] {
  const groups = new Map<string, HelpsCell[]>();
  for (const c of cells) {
    if (c.world === ACROSS_WORLDS || c.halfWidth === null || c.n < 2) continue;
    const key = `${c.env}@${c.misleadingFraction}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const pooled: HelpsCell[] = [];
  for (const group of groups.values()) {
    if (new Set(group.map((c) => c.world)).size !== group.length || group.length < 2) continue;
    const byWorld = [...group].sort((a, b) => a.world - b.world);
    const interval = seedInterval(byWorld.map((c) => c.mean));
    pooled.push({
      env: byWorld[0]!.env,
      world: ACROSS_WORLDS,
      misleadingFraction: byWorld[0]!.misleadingFraction,
      source,
      n: byWorld.length,
      mean: interval.mean,
      halfWidth: interval.halfWidth,
      perSeed: null,
      note:
        `mean over ${byWorld.length} task worlds of each world’s mean, t-interval over worlds (n counts worlds): ` +
        byWorld.map((c) => `world ${c.world} ${signedPoints(c.mean)} (n = ${c.n})`).join(', '),
      runIds: [],
    });
  }
  return pooled;
}

/** "shell#1@0.375": environment, task world, misleading fraction. */
export const cellKey = (c: { env: string; world: number; misleadingFraction: number }): string =>
  `${c.env}#${c.world}@${c.misleadingFraction}`;

/** A stored run as the map needs it: its config's parts and its final test success (0–1), null until it ends. */
export interface MapRun {
  readonly id: string;
  readonly config: {
    readonly seed: number;
    readonly env: { readonly name: string; readonly seed: number; readonly misleadingSkillFraction: number };
    readonly student: { readonly schedule: string };
  };
  readonly testSuccess: number | null;
}

/** The config without the keys a cell varies or pairs on (name, seed, student.schedule), as one comparable text. */
function baseKey(config: MapRun['config']): string {
  const { seed: _seed, name: _name, ...rest } = config as MapRun['config'] & { name?: unknown };
  const { schedule: _schedule, ...student } = rest.student as Record<string, unknown>;
  return JSON.stringify({ ...rest, student }, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** The two schedules a cell contrasts: `treatment` − `control`, paired on the seed. */
export interface CellArms {
  readonly treatment: string;
  readonly control: string;
}

/** The map's contrast: RetireOPD (the adaptive gate) − OPD throughout. */
export const MAP_ARMS: CellArms = { treatment: 'adaptive', control: 'never' };

/**
 * The user's runs as cells: per base config, `arms.treatment` − `arms.control` (the map's RetireOPD − OPD throughout
 * unless said) on each seed both finished.
 */
export function runCells(runs: readonly MapRun[], arms: CellArms = MAP_ARMS): HelpsCell[] {
  const groups = new Map<string, { retire: Map<number, MapRun>; opd: Map<number, MapRun> }>();
  for (const run of runs) {
    if (run.testSuccess === null || !Number.isFinite(run.testSuccess)) continue;
    const schedule = run.config.student.schedule;
    const arm = schedule === arms.treatment ? 'retire' : schedule === arms.control ? 'opd' : null;
    if (arm === null) continue;
    const key = baseKey(run.config);
    const g = groups.get(key) ?? { retire: new Map(), opd: new Map() };
    g[arm].set(run.config.seed, run);
    groups.set(key, g);
  }
  const cells: HelpsCell[] = [];
  for (const g of groups.values()) {
    const seeds = [...g.retire.keys()].filter((s) => g.opd.has(s)).sort((a, b) => a - b);
    if (seeds.length === 0) continue;
    const perSeed = seeds.map((seed) => ({
      seed,
      difference: 100 * ((g.retire.get(seed)!.testSuccess as number) - (g.opd.get(seed)!.testSuccess as number)),
    }));
    const interval = seedInterval(perSeed.map((p) => p.difference));
    const first = g.retire.get(seeds[0] as number)!.config;
    cells.push({
      env: first.env.name,
      world: first.env.seed,
      misleadingFraction: first.env.misleadingSkillFraction,
      source: 'your runs',
      n: seeds.length,
      mean: interval.mean,
      halfWidth: Number.isFinite(interval.halfWidth) ? interval.halfWidth : null,
      perSeed,
      note: seeds.length < 2 ? 'one seed: no interval' : 'paired by seed over your finished runs',
      runIds: seeds.flatMap((s) => [g.retire.get(s)!.id, g.opd.get(s)!.id]),
    });
  }
  return bestCells(cells);
}

/**
 * An earlier cell measured again: the union of both cells' seeds — the newer difference where both measured a seed —
 * with the mean and 95 % t-interval over that union, so seeds can be added to a cell whose run folders are gone.
 * The newer cell stands alone when either lists no per-seed values, or when it is of another cell.
 */
export function mergeSeeds(earlier: HelpsCell, newer: HelpsCell): HelpsCell {
  if (cellKey(earlier) !== cellKey(newer) || earlier.perSeed === null || newer.perSeed === null) return newer;
  const measured = new Set(newer.perSeed.map((p) => p.seed));
  const kept = earlier.perSeed.filter((p) => !measured.has(p.seed));
  if (kept.length === 0) return newer;
  const perSeed = [...kept, ...newer.perSeed].sort((a, b) => a.seed - b.seed);
  const interval = seedInterval(perSeed.map((p) => p.difference));
  return {
    ...newer,
    n: perSeed.length,
    mean: interval.mean,
    halfWidth: Number.isFinite(interval.halfWidth) ? interval.halfWidth : null,
    perSeed,
    note: `${newer.note}; seeds ${kept.map((p) => p.seed).join(', ')} from ${earlier.source}`,
  };
}

export type CellSign = 'higher' | 'lower' | 'null' | 'no interval';

/** Coloured by sign only when the interval excludes 0; grey (null) otherwise; no interval is its own grey. */
export function cellSign(c: HelpsCell): CellSign {
  if (c.halfWidth === null || c.n < 2) return 'no interval';
  if (c.mean - c.halfWidth > 0) return 'higher';
  if (c.mean + c.halfWidth < 0) return 'lower';
  return 'null';
}

/**
 * "+3.6 ± 11.6 (n = 10; no measurable difference)", "−9.5 ± 5.4 (n = 5; competence-only measurably lower)" (a
 * measurable difference names `treatment`, the arm the cell's difference is of), or "−13.9 (n = 10; no interval)".
 */
export function cellText(c: HelpsCell, treatment = 'RetireOPD'): string {
  if (c.halfWidth === null || c.n < 2) return `${signedPoints(c.mean)} (n = ${c.n}; no interval)`;
  return `${signedPoints(c.mean)} ± ${c.halfWidth.toFixed(1)} (n = ${c.n}; ${intervalWords(c.mean, c.halfWidth, c.n, treatment)})`;
}
