// The dose–response of RetireOPD − OPD throughout on the teacher's error level (env.misleadingSkillFraction) in one
// task world: the map's cells of one environment (helpsMap.ts: the paired difference per level, by seed) and the
// slope of the paired difference on the error level. The slope is a two-stage, per-seed regression: each seed's
// least-squares slope over the levels it ran (points per unit of misleading fraction), then their mean and 95 %
// Student-t interval over seeds — each seed is one observation of the slope, so the interval holds the
// seed-to-seed spread without a model of how one seed's cells covary (a mixed model would assume one).
import { cellText, type HelpsCell } from './helpsMap';
import { seedInterval, type SeedInterval } from './seedStatistics';
import { verdictOf } from './pairedArms';
import { signedPoints } from './seedSpread';

/** A dose–response page's cells as they are committed beside it (PAGE.json), for the tab's map. */
export interface DoseResponseCells {
  /** the page, from the repository root */
  page: string;
  commit: string;
  date: string;
  cells: HelpsCell[];
}

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

export interface DoseResponsePageOptions {
  title: string;
  /** the environment the cells are of */
  env: string;
  /** paragraphs before the tables (what ran, and why) */
  intro: string;
  command: string;
  commit: string;
  date: string;
}

/** "+12.3 ± 20.1 points per 10 % more misleading entries (n = 5 seeds; no measurable difference)". */
export function slopeWords(slope: SeedInterval): string {
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
    `entries (n = ${slope.n} seeds; ${words})`
  );
}

/** The page: the cells of `env` by level, each seed's slope, and the slope over seeds in words. */
export function doseResponsePage(cells: readonly HelpsCell[], o: DoseResponsePageOptions): string {
  const own = cells.filter((c) => c.env === o.env).sort((a, b) => a.misleadingFraction - b.misleadingFraction);
  const { perSeed, slope } = pooledSlope(own);
  const seeds = [...new Set(own.flatMap((c) => (c.perSeed ?? []).map((p) => p.seed)))].sort((a, b) => a - b);
  const lines = [
    `# ${o.title}`,
    '',
    o.intro.trim(),
    '',
    `Command: \`${o.command}\``,
    '',
    `Commit ${o.commit}, ${o.date}. Test success at T = 1; differences in points (RetireOPD − OPD throughout, paired on`,
    'the seed); intervals are 95 % Student-t over seeds; an interval that holds zero reads as no measurable difference.',
    '',
    '## By teacher error level',
    '',
    `| misleading fraction | RetireOPD − OPD throughout | ${seeds.map((s) => `seed ${s}`).join(' | ')} |`,
    `|---|---|${seeds.map(() => '---|').join('')}`,
    ...own.map((c) => {
      const by = new Map((c.perSeed ?? []).map((p) => [p.seed, p.difference]));
      const cellsText = seeds.map((s) => (by.has(s) ? signedPoints(by.get(s)!) : '–'));
      return `| ${c.misleadingFraction} | ${cellText(c)} | ${cellsText.join(' | ')} |`;
    }),
    '',
    '## The slope on the error level',
    '',
    'Each seed’s least-squares line of its differences on the misleading fraction, then the mean of the seeds’ slopes',
    'with its t-interval (n − 1 degrees of freedom): a two-stage regression, one slope per seed.',
    '',
    '| seed | slope, points per 10 % | fitted difference at 0 |',
    '|---|---|---|',
    ...perSeed.map((s) => `| ${s.seed} | ${signedPoints(s.slope / 10)} | ${signedPoints(s.intercept)} |`),
    '',
    `**Slope over seeds: ${slopeWords(slope)}.**`,
    '',
  ];
  return lines.join('\n');
}
