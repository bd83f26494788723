// The held-out seed protocol, declared once: methods and settings are tuned on TUNING_SEEDS and the story tables are
// reported once on REPORTING_SEEDS, ten fresh seeds nobody looked at while tuning. The seed is the unit of
// replication (statistics by seed: seedStatistics.ts). The reporting command refuses to call a table built from
// tuning seeds a protocol table; the tuning path (`npm run sweep`, `npm run experiment`) warns when it is handed a
// reporting seed, because looking at them while tuning spends the held-out set.

/** Seeds 0–4: every choice of the demo (presets, thresholds, budgets) was made looking at these. */
export const TUNING_SEEDS: readonly number[] = [0, 1, 2, 3, 4];

/** Seeds 1000–1009: the held-out set, run once for the reported tables. */
export const REPORTING_SEEDS: readonly number[] = Array.from({ length: 10 }, (_, i) => 1000 + i);

export type SeedSet = 'tuning' | 'reporting';

export function seedsOf(set: SeedSet): readonly number[] {
  return set === 'tuning' ? TUNING_SEEDS : REPORTING_SEEDS;
}

const isReporting = (seed: number): boolean => REPORTING_SEEDS.includes(seed);
const isTuning = (seed: number): boolean => TUNING_SEEDS.includes(seed);

/**
 * The tuning path's warning: null when no reporting seed is among `seeds`, else one sentence naming them (the
 * caller prints it on stderr and goes on — it is a warning, the run itself is legitimate).
 */
export function tuningSeedWarning(seeds: readonly number[]): string | null {
  const held = seeds.filter(isReporting);
  if (held.length === 0) return null;
  return (
    `seed${held.length > 1 ? 's' : ''} ${held.join(', ')} belong${held.length > 1 ? '' : 's'} to the held-out ` +
    `reporting set (${REPORTING_SEEDS[0]}–${REPORTING_SEEDS.at(-1)}): tuning on them spends the held-out set; ` +
    `tune on ${TUNING_SEEDS.join(', ')} and report once with \`npm run protocol -- --seeds reporting\``
  );
}

/**
 * Why the runs' seeds cannot back a protocol table of the set `set`, or null when they can. A reporting table must
 * hold only reporting seeds, and none of the tuning seeds; a tuning table only tuning seeds.
 */
export function protocolSeedProblem(set: SeedSet, seeds: readonly number[]): string | null {
  if (seeds.length === 0) return 'no finished runs';
  const allowed = seedsOf(set);
  const foreign = [...new Set(seeds.filter((s) => !allowed.includes(s)))].sort((a, b) => a - b);
  if (foreign.length === 0) return null;
  if (set === 'reporting' && foreign.some(isTuning))
    return (
      `seed${foreign.length > 1 ? 's' : ''} ${foreign.join(', ')} ${foreign.length > 1 ? 'are' : 'is'} not held out ` +
      `(the tuning seeds are ${TUNING_SEEDS.join(', ')}): a reporting table is built only from seeds ` +
      `${REPORTING_SEEDS[0]}–${REPORTING_SEEDS.at(-1)}`
    );
  return `seed${foreign.length > 1 ? 's' : ''} ${foreign.join(', ')} ${foreign.length > 1 ? 'are' : 'is'} not in the ${set} set (${allowed.join(', ')})`;
}
