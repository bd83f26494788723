// Where the recorded lesson's seed sits among the reporting seeds: the lesson plays one seed (DEMO_SEED), and the
// held-out page reports ten. This file's data (public/demo/seed-spread.json, generated from the committed page by
// cli/outcomeFiles.ts, never typed by hand) and the one line the Overview and the tour show beside the story:
// "this seed: +16.7; ten seeds: +3.6 ± 11.6 (95 % interval; no measurable difference)". Values are points (percent
// of test tasks), RetireOPD − OPD throughout, paired by seed.
import { z } from 'zod';
import type { OutcomePage } from './outcomePage';
import { verdictOf } from './pairedArms';

/** The file beside the recording (public/demo/). */
export const SEED_SPREAD_FILE = 'seed-spread.json';

export const seedSpreadSchema = z.strictObject({
  /** the page the numbers were read from, e.g. "docs/outcomes/protocol-shell-reporting.md" */
  source: z.string(),
  /** the commit and date the page names */
  commit: z.string(),
  date: z.string(),
  /** "RetireOPD − OPD throughout" */
  comparison: z.string(),
  /** the recorded seed and its paired difference (points) */
  seed: z.number().int(),
  thisSeed: z.number(),
  /** the reporting seeds' mean difference and the half-width of its 95 % t-interval (points) */
  n: z.number().int().min(1),
  mean: z.number(),
  halfWidth: z.number().nonnegative(),
  level: z.number(),
  perSeed: z.array(z.strictObject({ seed: z.number().int(), difference: z.number() })),
});
export type SeedSpread = z.infer<typeof seedSpreadSchema>;

/** The spread of `arm` (default OPD throughout) on `page`, with `seed`'s own difference. */
export function seedSpreadOf(page: OutcomePage, source: string, seed: number, arm = 'OPD throughout'): SeedSpread {
  const line = page.paired.find((p) => p.arm === arm);
  if (!line) throw new Error(`${source}: no "RetireOPD − ${arm}: … (per seed: …)" line`);
  const own = line.perSeed.find((p) => p.seed === seed);
  if (!own) throw new Error(`${source}: seed ${seed} is not among the per-seed differences of RetireOPD − ${arm}`);
  return {
    source,
    commit: page.commit,
    date: page.date,
    comparison: `RetireOPD − ${arm}`,
    seed,
    thisSeed: own.difference,
    n: line.n,
    mean: line.mean,
    halfWidth: line.halfWidth,
    level: 0.95,
    perSeed: line.perSeed.map((p) => ({ ...p })),
  };
}

/** Points with a sign and one decimal: "+16.7", "−33.0" (typographic minus), "+0.0". */
export function signedPoints(x: number): string {
  const text = Math.abs(x).toFixed(1);
  return x < 0 && text !== '0.0' ? `−${text}` : `+${text}`;
}

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
/** "ten seeds", "one seed", "12 seeds". */
export const seedCount = (n: number): string => `${WORDS[n] ?? String(n)} seed${n === 1 ? '' : 's'}`;

/**
 * How an interval of `treatment` − its control reads: one holding 0 is "no measurable difference" (a null reads as a
 * null); otherwise the treatment arm is named as measurably higher or lower.
 */
export function intervalWords(mean: number, halfWidth: number, n: number, treatment = 'RetireOPD'): string {
  const verdict = verdictOf({
    n,
    mean,
    sd: Number.NaN,
    halfWidth,
    lower: mean - halfWidth,
    upper: mean + halfWidth,
    level: 0.95,
  });
  return verdict === 'measurably higher'
    ? `${treatment} measurably higher`
    : verdict === 'measurably lower'
      ? `${treatment} measurably lower`
      : verdict;
}

/** "ten seeds: +3.6 ± 11.6 (95 % interval; no measurable difference)". */
export function seedsText(s: SeedSpread): string {
  const level = Math.round(100 * s.level);
  return (
    `${seedCount(s.n)}: ${signedPoints(s.mean)} ± ${s.halfWidth.toFixed(1)} ` +
    `(${level} % interval; ${intervalWords(s.mean, s.halfWidth, s.n)})`
  );
}

/** "this seed: +16.7; ten seeds: +3.6 ± 11.6 (95 % interval; no measurable difference)". */
export function seedSpreadText(s: SeedSpread): string {
  return `this seed: ${signedPoints(s.thisSeed)}; ${seedsText(s)}`;
}
