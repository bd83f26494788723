// The shop's catalogue and vocabulary: categories and the thesauri their product lines are listed under, colours,
// materials, sizes, prices and caps, item ids, the action heads, and the word list the shop's vocabulary is built
// from (in this order: the token ids depend on it). The store's rules are in shopEnv.ts.
import type { Rng } from '../rng';

export const SHOP_CATEGORIES = ['shirt', 'shoes', 'bag', 'hat', 'mug', 'lamp', 'chair', 'clock'] as const;
/** thesaurus: the store lists each category under one of these words */
export const SHOP_SYNONYMS: readonly (readonly string[])[] = [
  ['tee', 'top', 'polo', 'jersey', 'blouse'],
  ['sneaker', 'boot', 'loafer', 'runner', 'sandal'],
  ['tote', 'pouch', 'satchel', 'sack', 'purse'],
  ['cap', 'beanie', 'fedora', 'beret', 'visor'],
  ['cup', 'tumbler', 'stein', 'beaker', 'flask'],
  ['light', 'lantern', 'sconce', 'torch', 'bulb'],
  ['stool', 'seat', 'bench', 'recliner', 'rocker'],
  ['timer', 'dial', 'chime', 'alarm', 'gauge'],
];
/** departments: apparel (shirt, shoes, bag, hat) and home (mug, lamp, chair, clock) */
const DEPARTMENT_OF = [0, 0, 0, 0, 1, 1, 1, 1] as const;
/** the words a product line of a category may be listed under: its department's four thesauri (20 words) */
export const SHOP_LISTING_WORDS: readonly (readonly string[])[] = SHOP_CATEGORIES.map((_, c) =>
  SHOP_SYNONYMS.filter((_, d) => DEPARTMENT_OF[d] === DEPARTMENT_OF[c]).flat(),
);
/** a word of `words` other than words[k], uniform over the rest (a misleading skill's listing word) */
export function otherWord(words: readonly string[], k: number, rng: Rng): string {
  return words[(k + 1 + rng.int(words.length - 1)) % words.length] as string;
}
export const COLORS = ['red', 'blue', 'green', 'black', 'white', 'pink'] as const;
export const MATERIALS = ['cotton', 'leather', 'wool', 'plastic'] as const;
export const SIZES = ['s', 'm', 'l'] as const;
export const PRICES = ['10', '20', '30', '40', '50', '60', '70', '80', '90'] as const; // price index p ↔ 10·(p+1)
export const CAPS = [2, 3, 4, 5, 6]; // price indices of the cap: 30..70
export const ITEM_IDS = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'] as const;
export const SCORES = ['0', '1', '2', '3', '4', '5'] as const; // attributes matched, shown after buy
export const RESULTS_SHOWN = 3;
export const ATTRIBUTES = 5;

export const HEADS = ['search', 'click', 'choose', 'buy'] as const;
/** turn and token limits (MicroEnvSpec.limits) */
export const LIMITS = { maxTurns: 4, maxActionTokens: 5, maxObsTokens: 8, maxPromptTokens: 8, skillTokens: 6 };
export const WORDS: readonly string[] = [
  ...HEADS,
  ...SHOP_CATEGORIES,
  ...SHOP_SYNONYMS.flat(),
  ...COLORS,
  ...MATERIALS,
  ...SIZES,
  ...PRICES,
  ...ITEM_IDS,
  ...SCORES,
  ...['size', 'under', 'listed', 'as', 'sizes', 'no', 'results', 'such', 'item', 'page', 'score', 'bad', 'command'],
];
