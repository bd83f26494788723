// A 2 × 2 factorial paired on the seed: two config keys (A, e.g. student.lambdaOpd; B, e.g. student.grpo.gradClip),
// two levels each, every seed run at all four combinations. Per seed it forms the simple effects — A's change
// (second level − first) at each level of B, B's at each level of A — and the interaction (A's effect at B's second
// level minus at its first: the difference of differences); each is then a mean with a 95 % Student-t interval over
// seeds, so the seed-to-seed spread is in every interval. This is how the lab separates λ_opd from the gradient clip
// that acts on most updates at λ_opd = 1: if λ's effect is the same with the clip off, the clip is not what λ changed.
import { seedInterval, type SeedInterval } from './seedStatistics';
import { verdictOf } from './pairedArms';
import { signedPoints } from './seedSpread';

/** One finished run: its levels of A and B (as config text), its seed and its test success (0–1). */
export interface FactorRun {
  seed: number;
  a: string;
  b: string;
  test: number;
}

/** A run's teacher-phase gradient statistics (updates while λ_opd > 0), for the clip table. */
export interface ClipStats {
  seed: number;
  a: string;
  b: string;
  /** mean of actor/grad_clipped over the teacher-phase steps: the share of updates the clip scaled */
  clipped: number;
  /** mean actor/grad_clip_coef over those steps (1 = never scaled) */
  coef: number;
  /** share of those steps whose gradient norm (before clipping) exceeded the clip norm being compared */
  overNorm: number;
}

export interface TwoByTwo {
  aLevels: [string, string];
  bLevels: [string, string];
  /** the seeds that ran all four combinations, ascending */
  seeds: number[];
  /** test success per combination over those seeds (points) */
  cells: { a: string; b: string; interval: SeedInterval }[];
  /** A's second level − its first, at each level of B (points, paired on the seed) */
  aEffect: { b: string; interval: SeedInterval; perSeed: number[] }[];
  /** B's second level − its first, at each level of A */
  bEffect: { a: string; interval: SeedInterval; perSeed: number[] }[];
  /** A's effect at B's second level minus at B's first (points) */
  interaction: SeedInterval;
}

/** The factorial over the seeds that ran every combination; a run's duplicate (same seed and levels) is refused. */
export function twoByTwo(runs: readonly FactorRun[], aLevels: [string, string], bLevels: [string, string]): TwoByTwo {
  const at = new Map<string, number>();
  const key = (seed: number, a: string, b: string) => `${seed}|${a}|${b}`;
  for (const r of runs) {
    const k = key(r.seed, r.a, r.b);
    if (at.has(k)) throw new Error(`seed ${r.seed} ran ${r.a} × ${r.b} twice: keep one run per seed and combination`);
    at.set(k, 100 * r.test);
  }
  const seeds = [...new Set(runs.map((r) => r.seed))]
    .filter((s) => aLevels.every((a) => bLevels.every((b) => at.has(key(s, a, b)))))
    .sort((x, y) => x - y);
  const v = (s: number, a: string, b: string) => at.get(key(s, a, b)) as number;
  const [a0, a1] = aLevels;
  const [b0, b1] = bLevels;
  const aDiff = (b: string) => seeds.map((s) => v(s, a1, b) - v(s, a0, b));
  const bDiff = (a: string) => seeds.map((s) => v(s, a, b1) - v(s, a, b0));
  return {
    aLevels,
    bLevels,
    seeds,
    cells: aLevels.flatMap((a) => bLevels.map((b) => ({ a, b, interval: seedInterval(seeds.map((s) => v(s, a, b))) }))),
    aEffect: bLevels.map((b) => ({ b, interval: seedInterval(aDiff(b)), perSeed: aDiff(b) })),
    bEffect: aLevels.map((a) => ({ a, interval: seedInterval(bDiff(a)), perSeed: bDiff(a) })),
    interaction: seedInterval(seeds.map((s) => v(s, a1, b1) - v(s, a0, b1) - (v(s, a1, b0) - v(s, a0, b0)))),
  };
}

/** "+3.1 ± 4.0 (no measurable difference)" for a paired difference in points. */
export function effectWords(d: SeedInterval): string {
  if (d.n < 2 || !Number.isFinite(d.halfWidth)) return `${signedPoints(d.mean)} (n = ${d.n}; no interval)`;
  const v = verdictOf(d);
  const words =
    v === 'no measurable difference' ? v : v === 'measurably higher' ? 'measurably positive' : 'measurably negative';
  return `${signedPoints(d.mean)} ± ${d.halfWidth.toFixed(1)} (${words})`;
}

export interface TwoByTwoPageOptions {
  title: string;
  intro: string;
  command: string;
  commit: string;
  date: string;
  /** the keys' names as the page writes them, e.g. "λ_opd" and "grad clip" */
  aName: string;
  bName: string;
  clip?: readonly ClipStats[];
}

const mean = (xs: readonly number[]) => xs.reduce((p, x) => p + x, 0) / xs.length;

/** The page: the four combinations, the simple effects, the interaction, and the clip's action per combination. */
export function twoByTwoPage(t: TwoByTwo, o: TwoByTwoPageOptions): string {
  const pm = (d: SeedInterval) =>
    Number.isFinite(d.halfWidth) ? `${d.mean.toFixed(1)} ± ${d.halfWidth.toFixed(1)}` : d.mean.toFixed(1);
  const clipRows = (o.clip ?? []).length
    ? [
        '## What the clip did in the teacher phase',
        '',
        'Per combination, means over seeds of each run’s teacher-phase steps (λ_opd > 0): the share of updates the clip',
        'scaled (`actor/grad_clipped`), the mean factor it scaled them by (`actor/grad_clip_coef`, 1 = untouched), and the',
        'share of steps whose gradient norm before clipping was above the clip norm (with the clip off: the updates it',
        'would have scaled).',
        '',
        `| ${o.aName} | ${o.bName} | clipped | mean factor | norm above the clip norm |`,
        '|---|---|---|---|---|',
        ...t.aLevels.flatMap((a) =>
          t.bLevels.map((b) => {
            const runs = (o.clip ?? []).filter((c) => c.a === a && c.b === b && t.seeds.includes(c.seed));
            if (runs.length === 0) return `| ${a} | ${b} | – | – | – |`;
            const share = (x: number) => `${(100 * x).toFixed(0)} %`;
            return (
              `| ${a} | ${b} | ${share(mean(runs.map((r) => r.clipped)))} | ${mean(runs.map((r) => r.coef)).toFixed(2)} | ` +
              `${share(mean(runs.map((r) => r.overNorm)))} |`
            );
          }),
        ),
        '',
      ]
    : [];
  return [
    `# ${o.title}`,
    '',
    o.intro.trim(),
    '',
    `Command: \`${o.command}\``,
    '',
    `Commit ${o.commit}, ${o.date}. Test success at T = 1 in points; every difference is paired on the seed (${t.seeds.length}`,
    `seeds: ${t.seeds.join(', ')}); intervals are 95 % Student-t over seeds; an interval that holds zero reads as no`,
    'measurable difference.',
    '',
    '## Test success per combination',
    '',
    `| ${o.aName} ╲ ${o.bName} | ${t.bLevels.join(' | ')} |`,
    `|---|${t.bLevels.map(() => '---|').join('')}`,
    ...t.aLevels.map(
      (a) =>
        `| ${a} | ${t.bLevels.map((b) => pm(t.cells.find((c) => c.a === a && c.b === b)!.interval)).join(' | ')} |`,
    ),
    '',
    '## Effects, paired on the seed',
    '',
    '| effect | points | per seed |',
    '|---|---|---|',
    ...t.aEffect.map(
      (e) =>
        `| ${o.aName} ${t.aLevels[1]} − ${t.aLevels[0]}, ${o.bName} ${e.b} | ${effectWords(e.interval)} | ` +
        `${e.perSeed.map(signedPoints).join(', ')} |`,
    ),
    ...t.bEffect.map(
      (e) =>
        `| ${o.bName} ${t.bLevels[1]} − ${t.bLevels[0]}, ${o.aName} ${e.a} | ${effectWords(e.interval)} | ` +
        `${e.perSeed.map(signedPoints).join(', ')} |`,
    ),
    `| interaction (${o.aName}’s effect at ${o.bName} ${t.bLevels[1]} minus at ${t.bLevels[0]}) | ${effectWords(t.interaction)} | |`,
    '',
    ...clipRows,
  ].join('\n');
}
