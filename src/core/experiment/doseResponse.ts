// The dose–response of RetireOPD − OPD throughout on the teacher's error level (env.misleadingSkillFraction), per
// task world and across worlds: the map's cells of one environment (helpsMap.ts: the paired difference per world and
// level, by seed) and the slope of the paired difference on the error level. Within a world the slope is a
// two-stage, per-seed regression: each seed's least-squares slope over the levels it ran (points per unit of
// misleading fraction), then their mean and 95 % Student-t interval over seeds — each seed is one observation of
// the slope, so the interval holds the seed-to-seed spread without a model of how one seed's cells covary (a mixed
// model would assume one). Across worlds the per-world regressions are pooled: each world's slope over the levels
// every world ran, then their mean and t-interval over worlds (n − 1 = worlds − 1 degrees of freedom) — the world is
// the unit a claim about "the method" generalises over, so few worlds give a wide interval, as they should.
import { cellText, type HelpsCell } from './helpsMap';
import { worldName } from './taskWorlds';
import { seedInterval, type SeedInterval } from './seedStatistics';
import { verdictOf } from './pairedArms';
import { intervalWords, signedPoints } from './seedSpread';

/** A dose–response page's cells as they are committed beside it (PAGE.json), for the tab's map. */
export interface DoseResponseCells {
  /** the page, from the repository root */
  page: string;
  commit: string;
  date: string;
  cells: HelpsCell[];
  /** the teacher and the gate per world and level (absent in files written before worlds were a factor) */
  teachers?: TeacherLevel[];
  /** the competence-only gate's contrasts, where the sweeps ran it */
  competenceOnly?: CompetenceOnlyCells;
}

/** What the teacher scored and what the gate did in one world at one error level, over the level's runs. */
export interface TeacherLevel {
  world: number;
  misleadingFraction: number;
  /** S_T: the frozen teacher's validation success (0–1), mean over the level's runs */
  teacherSuccess: number;
  /** RetireOPD runs at the level, and how many of them retired the teacher */
  retireRuns: number;
  retired: number;
  /** first and last trigger step among those that retired; null when none did */
  triggerSteps: [number, number] | null;
}

/** Ascending by task world, then by error level: the order of a page's rows and its cells file. */
export const byWorldAndLevel = (
  a: { world: number; misleadingFraction: number },
  b: { world: number; misleadingFraction: number },
): number => a.world - b.world || a.misleadingFraction - b.misleadingFraction;

/** One seed's least-squares line of its paired differences (points) on the misleading fraction. */
export interface SeedSlope {
  seed: number;
  /** points per unit of misleading fraction (×0.1 for points per 10 % more misleading entries) */
  slope: number;
  /** the fitted difference at fraction 0, points */
  intercept: number;
  /** the distinct levels the seed ran */
  levels: number;
}

/** Each seed's slope over the cells' per-seed differences; seeds with fewer than two distinct levels are left out. */
export function seedSlopes(cells: readonly HelpsCell[]): SeedSlope[] {
  const bySeed = new Map<number, { x: number; y: number }[]>();
  for (const c of cells)
    for (const p of c.perSeed ?? []) {
      const points = bySeed.get(p.seed) ?? [];
      points.push({ x: c.misleadingFraction, y: p.difference });
      bySeed.set(p.seed, points);
    }
  const slopes: SeedSlope[] = [];
  for (const [seed, points] of [...bySeed].sort(([a], [b]) => a - b)) {
    const levels = new Set(points.map((p) => p.x)).size;
    if (levels < 2) continue;
    const mx = points.reduce((a, p) => a + p.x, 0) / points.length;
    const my = points.reduce((a, p) => a + p.y, 0) / points.length;
    const sxy = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
    const sxx = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
    const slope = sxy / sxx;
    slopes.push({ seed, slope, intercept: my - slope * mx, levels });
  }
  return slopes;
}

/** The slope over seeds: mean and 95 % t-interval of the per-seed slopes (points per unit fraction). */
export function pooledSlope(cells: readonly HelpsCell[]): { perSeed: SeedSlope[]; slope: SeedInterval } {
  const perSeed = seedSlopes(cells);
  return { perSeed, slope: seedInterval(perSeed.map((s) => s.slope)) };
}

/** The distinct error levels the cells cover. */
const levelCount = (cells: readonly HelpsCell[]): number => new Set(cells.map((c) => c.misleadingFraction)).size;

/** The worlds the cells cover, ascending. */
export function cellWorlds(cells: readonly HelpsCell[]): number[] {
  return [...new Set(cells.map((c) => c.world))].sort((a, b) => a - b);
}

/** The error levels every world ran (ascending): the levels a slope comparable across worlds is fitted on. */
export function commonLevels(cells: readonly HelpsCell[]): number[] {
  const worlds = cellWorlds(cells);
  const levels = [...new Set(cells.map((c) => c.misleadingFraction))].sort((a, b) => a - b);
  return levels.filter((f) => worlds.every((w) => cells.some((c) => c.world === w && c.misleadingFraction === f)));
}

export interface AcrossWorlds {
  /** the levels the slopes are fitted on */
  levels: number[];
  /** each world's slope over its seeds on those levels */
  perWorld: { world: number; slope: SeedInterval }[];
  /** the mean of the worlds' slopes, t-interval over worlds: the pooled per-world regression */
  overWorlds: SeedInterval;
  /** every (world, seed) slope as one observation: narrower, but it ignores that a world's seeds share the world */
  overReplicates: SeedInterval;
}

/** The slope across worlds on the levels every world ran (points per unit fraction). */
export function acrossWorlds(cells: readonly HelpsCell[]): AcrossWorlds {
  const levels = commonLevels(cells);
  // a slope needs two levels: with fewer there is none to pool (empty intervals, n = 0)
  if (levels.length < 2)
    return { levels, perWorld: [], overWorlds: seedInterval([]), overReplicates: seedInterval([]) };
  const onLevels = cells.filter((c) => levels.includes(c.misleadingFraction));
  const perWorld = cellWorlds(cells).map((world) => {
    const slopes = seedSlopes(onLevels.filter((c) => c.world === world));
    return { world, slope: seedInterval(slopes.map((s) => s.slope)), slopes };
  });
  return {
    levels,
    perWorld: perWorld.map(({ world, slope }) => ({ world, slope })),
    overWorlds: seedInterval(perWorld.map((w) => w.slope.mean)),
    overReplicates: seedInterval(perWorld.flatMap((w) => w.slopes.map((s) => s.slope))),
  };
}

/** One level across worlds: the mean of the worlds' mean differences, t-interval over worlds (points). */
export function levelAcrossWorlds(cells: readonly HelpsCell[], fraction: number): SeedInterval {
  return seedInterval(cells.filter((c) => c.misleadingFraction === fraction).map((c) => c.mean));
}

export interface DoseResponsePageOptions {
  title: string;
  /** the environment the cells are of */
  env: string;
  /** paragraphs before the tables (what ran, and why) */
  intro: string;
  command: string;
  commit: string;
  date: string;
  /** the teacher's S_T and the gate's retirements per world and level, where known */
  teachers?: readonly TeacherLevel[];
  /** the competence-only gate as a third arm, where the sweeps ran it (runCells with those arms) */
  competenceOnly?: CompetenceOnlyCells;
}

/** The third arm's contrasts, per world and level, paired on the seed like the map's cells. */
export interface CompetenceOnlyCells {
  /** competence-only gate − OPD throughout */
  vsOpd: readonly HelpsCell[];
  /** RetireOPD (adaptive gate) − competence-only gate: what the alignment condition adds */
  adaptiveVs: readonly HelpsCell[];
}

/** "+12.3 ± 20.1 points per 10 % more misleading entries (n = 5 seeds; no measurable slope)". */
export function slopeWords(slope: SeedInterval, unit: 'seeds' | 'worlds' | 'world × seed slopes' = 'seeds'): string {
  const per10 = (x: number) => x / 10;
  if (slope.n < 2 || !Number.isFinite(slope.halfWidth))
    return `${signedPoints(per10(slope.mean))} points per 10 % more misleading entries (n = ${slope.n}; no interval)`;
  const v = verdictOf(slope);
  const words =
    v === 'measurably higher'
      ? 'the difference measurably rises with the error level'
      : v === 'measurably lower'
        ? 'the difference measurably falls with the error level'
        : 'no measurable slope';
  return (
    `${signedPoints(per10(slope.mean))} ± ${per10(slope.halfWidth).toFixed(1)} points per 10 % more misleading ` +
    `entries (n = ${slope.n} ${unit}; ${words})`
  );
}

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

/** The teachers' table: S_T and retirements per world and level. */
function teacherLines(teachers: readonly TeacherLevel[]): string[] {
  if (teachers.length === 0) return [];
  const sorted = [...teachers].sort(byWorldAndLevel);
  return [
    '## The teacher and the gate',
    '',
    'S_T is the frozen teacher’s validation success (the gate’s metric), mean over the level’s runs; retirements count',
    'the RetireOPD runs whose gate retired the teacher, with the first and last trigger step.',
    '',
    '| world | misleading fraction | S_T | retired | trigger steps |',
    '|---|---|---|---|---|',
    ...sorted.map(
      (t) =>
        `| ${t.world} | ${t.misleadingFraction} | ${pct(t.teacherSuccess)} | ${t.retired} of ${t.retireRuns} | ` +
        `${t.triggerSteps ? `${t.triggerSteps[0]}–${t.triggerSteps[1]}` : '–'} |`,
    ),
    '',
  ];
}

/** One world: its cells by level with each seed's difference, each seed's slope, and the slope over seeds. */
function worldLines(own: readonly HelpsCell[], world: number): string[] {
  const cells = own.filter((c) => c.world === world);
  const { perSeed, slope } = pooledSlope(cells);
  const seeds = [...new Set(cells.flatMap((c) => (c.perSeed ?? []).map((p) => p.seed)))].sort((a, b) => a - b);
  return [
    `## ${worldName(world)[0]!.toUpperCase()}${worldName(world).slice(1)} (env.seed ${world})`,
    '',
    `| misleading fraction | RetireOPD − OPD throughout | ${seeds.map((s) => `seed ${s}`).join(' | ')} |`,
    `|---|---|${seeds.map(() => '---|').join('')}`,
    ...cells.map((c) => {
      const by = new Map((c.perSeed ?? []).map((p) => [p.seed, p.difference]));
      const cellsText = seeds.map((s) => (by.has(s) ? signedPoints(by.get(s)!) : '–'));
      return `| ${c.misleadingFraction} | ${cellText(c)} | ${cellsText.join(' | ')} |`;
    }),
    '',
    ...(levelCount(cells) < 2
      ? [`One error level in ${worldName(world)}: no slope to fit.`, '']
      : [
          '| seed | slope, points per 10 % | fitted difference at 0 |',
          '|---|---|---|',
          ...perSeed.map((s) => `| ${s.seed} | ${signedPoints(s.slope / 10)} | ${signedPoints(s.intercept)} |`),
          '',
          `**Slope over seeds in ${worldName(world)}: ${slopeWords(slope)}.**`,
          '',
        ]),
  ];
}

/** Across worlds: each level's mean over worlds, and the pooled per-world slope on the levels every world ran. */
function acrossLines(own: readonly HelpsCell[]): string[] {
  const worlds = cellWorlds(own);
  if (worlds.length < 2) return [];
  const across = acrossWorlds(own);
  const levels = [...new Set(own.map((c) => c.misleadingFraction))].sort((a, b) => a - b);
  const short = (c: HelpsCell | undefined): string =>
    !c ? '–' : c.halfWidth === null ? signedPoints(c.mean) : `${signedPoints(c.mean)} ± ${c.halfWidth.toFixed(1)}`;
  return [
    '## Across worlds',
    '',
    'Per level: each world’s mean difference (over its seeds), and their mean with a t-interval over the worlds that ran',
    'the level (n = worlds; a level one world ran has no interval across worlds).',
    '',
    `| misleading fraction | ${worlds.map((w) => worldName(w)).join(' | ')} | over worlds |`,
    `|---|${worlds.map(() => '---|').join('')}---|`,
    ...levels.map((f) => {
      const at = worlds.map((w) => own.find((c) => c.world === w && c.misleadingFraction === f));
      const over = levelAcrossWorlds(own, f);
      const overText =
        over.n < 2
          ? '–'
          : `${signedPoints(over.mean)} ± ${over.halfWidth.toFixed(1)} (n = ${over.n} worlds; ` +
            `${intervalWords(over.mean, over.halfWidth, over.n)})`;
      return `| ${f} | ${at.map(short).join(' | ')} | ${overText} |`;
    }),
    '',
    ...(across.levels.length < 2
      ? ['The worlds share fewer than two error levels: no slope across worlds to fit.', '']
      : [
          `The slope across worlds, fitted on the levels every world ran (${across.levels.join(', ')}): each world’s`,
          'per-seed slopes averaged (a per-world regression), then pooled over worlds with a t-interval over worlds.',
          '',
          '| world | slope over its seeds, points per 10 % |',
          '|---|---|',
          ...across.perWorld.map((w) => `| ${w.world} | ${slopeWords(w.slope)} |`),
          '',
          `**Slope over worlds: ${slopeWords(across.overWorlds, 'worlds')}.** Counting every world’s seed as one`,
          `observation instead (it ignores that a world’s seeds share the world and its teacher): ${slopeWords(across.overReplicates, 'world × seed slopes')}.`,
          '',
        ]),
  ];
}

/** The competence-only gate beside the two arms: its difference from each, per world and level, and its slope. */
function competenceLines(map: readonly HelpsCell[], third: CompetenceOnlyCells, env: string): string[] {
  const of = (cells: readonly HelpsCell[]) => cells.filter((c) => c.env === env);
  const [vsOpd, adaptiveVs] = [of(third.vsOpd), of(third.adaptiveVs)];
  if (vsOpd.length === 0 && adaptiveVs.length === 0) return [];
  const key = (c: HelpsCell) => `${c.world}@${c.misleadingFraction}`;
  // one row per world and level that either contrast measured
  const rows = [...new Map([...vsOpd, ...adaptiveVs].map((c) => [key(c), c])).values()].sort(byWorldAndLevel);
  // `treatment`: the arm a measurable difference names (competence-only in its own column)
  const text = (cells: readonly HelpsCell[], k: string, treatment = 'RetireOPD') => {
    const c = cells.find((x) => key(x) === k);
    return c ? cellText(c, treatment) : '–';
  };
  const worlds = cellWorlds(vsOpd);
  const slope =
    levelCount(vsOpd) < 2
      ? ''
      : worlds.length >= 2
        ? `Slope of competence-only − OPD throughout over worlds: ${slopeWords(acrossWorlds(vsOpd).overWorlds, 'worlds')}.`
        : worlds.length === 1
          ? `Slope of competence-only − OPD throughout in ${worldName(worlds[0]!)}: ${slopeWords(pooledSlope(vsOpd).slope)}.`
          : '';
  return [
    '## The competence-only gate as a third arm',
    '',
    'The same sweeps ran the competence-only gate (retire once η ≥ γ, whatever the alignment ρ), paired on the seed with',
    'the other two arms. RetireOPD − competence-only is what the alignment condition (ρ ≤ δ) adds to the gate.',
    '',
    '| world | misleading fraction | RetireOPD − OPD throughout | competence-only − OPD throughout | RetireOPD − competence-only |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.world} | ${r.misleadingFraction} | ${text(map, key(r))} | ${text(vsOpd, key(r), 'competence-only')} | ` +
        `${text(adaptiveVs, key(r))} |`,
    ),
    '',
    ...(slope ? [`**${slope}**`, ''] : []),
  ];
}

/** The page: the teacher per world, each world's cells and slope, and the slope across worlds in words. */
export function doseResponsePage(cells: readonly HelpsCell[], o: DoseResponsePageOptions): string {
  const own = cells.filter((c) => c.env === o.env).sort(byWorldAndLevel);
  const lines = [
    `# ${o.title}`,
    '',
    o.intro.trim(),
    '',
    `Command: \`${o.command}\``,
    '',
    `Commit ${o.commit}, ${o.date}. Test success at T = 1; differences in points (RetireOPD − OPD throughout, paired on`,
    'the seed); intervals are 95 % Student-t over seeds (or over worlds where said); an interval that holds zero reads',
    'as no measurable difference. Within a world the slope is a two-stage regression: each seed’s least-squares line',
    'of its differences on the misleading fraction, then the mean of the seeds’ slopes with its t-interval (n − 1',
    'degrees of freedom).',
    '',
    ...teacherLines(o.teachers ?? []),
    ...cellWorlds(own).flatMap((w) => worldLines(own, w)),
    ...acrossLines(own),
    ...(o.competenceOnly ? competenceLines(own, o.competenceOnly, o.env) : []),
  ];
  return lines.join('\n');
}
