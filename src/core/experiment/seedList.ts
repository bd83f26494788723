// A list of seeds as typed — the queue form's seeds, `npm run sweep -- --seeds`, a sweep preset's seeds as text —
// read one way everywhere: comma-separated decimal integers in 0 … MAX_SEED (each as parseSeed reads one seed, so
// "0x10", "1e2", "-0", "+1" and "1.0" are refused), blanks around an entry allowed, and no seed twice (a duplicate
// would train the same run twice and count it twice in the mean). Errors name the entry as typed.
import { MAX_SEED, parseSeed } from './numberText';

const shown = (text: string) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);

const EXPECTED = `expected comma-separated integers ≥ 0 in decimal digits, at most ${MAX_SEED} (e.g. 0,1,2)`;

/** The seeds of "0, 1, 2", or an error in words naming the offending entry. */
export function parseSeedList(text: string): { value: number[] } | { error: string } {
  const entries = text.split(',').map((s) => s.trim());
  if (entries.length === 1 && entries[0] === '') return { error: `${EXPECTED}; got nothing` };
  const seeds: number[] = [];
  const seen = new Map<number, string>();
  for (const [i, entry] of entries.entries()) {
    if (entry === '' || 'error' in parseSeed(entry))
      return { error: `${EXPECTED}; entry ${i + 1} of ${shown(text)} is ${entry === '' ? 'empty' : shown(entry)}` };
    const value = Number(entry);
    const before = seen.get(value);
    if (before !== undefined)
      return { error: `seed ${value} is given twice (${shown(before)} and ${shown(entry)}): each seed once` };
    seen.set(value, entry);
    seeds.push(value);
  }
  return { value: seeds };
}
