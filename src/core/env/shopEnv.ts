// shop: a WebShop-like store. The instruction names a colour, a material, a category, a size and a price cap
// ("red cotton shirt size m under 40"). The store files each product line (a material and a category: cotton
// shirts) under one word of its department's thesaurus (apparel: tee, top, …, sneaker, …, tote, …, cap, …; home:
// cup, …, light, …, stool, …, timer, …), fixed by the seed (cotton shirts may be listed as `polo`, leather
// shirts as `satchel`); a search without that word finds nothing. Results are ranked by how many of the query's
// colour/material words an item matches, then by price (cheapest first); one item matches everything, its twin
// is over the cap and so listed after it.
// Information the student must earn: 32 product lines × 20 words, and 4 turns allow one search
// (search, click, choose, buy), so a skill-free explorer succeeds ≈ 1/20, a skill follower on every truthful
// entry, the expert always. The skill names the listing word ("cotton shirt listed as polo"). The store's
// mechanics are kept easy to copy (the first result of a full query; the size from the instruction): a 2-layer
// policy did not learn to compare prices with the cap in 800 SFT steps, and no skill helps with that. With 5
// or 10 words per line pure GRPO found each line's word by sampling about as fast as OPD taught it. Finding the
// word is what the skill, or internalised knowledge of the store, is for.
//   actions: search W [W W] | click ITEM | choose SIZE | buy
//   observations: `ITEM PRICE` pairs, an item page `COLOUR MATERIAL PRICE sizes S…`, `size S`, the bought score.
// Reward = fraction of the five attributes (category, colour, material, size, price ≤ cap) the bought item
// matches, as WebShop scores it; success iff all five.
// The catalogue and vocabulary are in shopCatalogue.ts; the world, transitions and scripted policies here.
import type { Rng } from '../rng';
import { deriveRng, hashString } from '../rng';
import { Outcome } from './episodeBatch';
import { MicroEnv, resolveEnvOptions, type EnvTask, type EpisodePolicy, type WorldDraft } from './microEnv';
import { scriptedPolicy } from './scriptedPolicy';
import {
  SHOP_CATEGORIES,
  SHOP_SYNONYMS,
  SHOP_LISTING_WORDS,
  otherWord,
  COLORS,
  MATERIALS,
  SIZES,
  PRICES,
  CAPS,
  ITEM_IDS,
  SCORES,
  RESULTS_SHOWN,
  ATTRIBUTES,
  HEADS,
  LIMITS,
  WORDS,
} from './shopCatalogue';

import type { SkillEntry } from './skillBank';
import type { EnvOptions } from './types';

export { SHOP_CATEGORIES, SHOP_LISTING_WORDS, SHOP_SYNONYMS } from './shopCatalogue';

// state layout
const S_RESULTS = 0; // bitmask of items on the last results page
const S_PAGE = 1; // item on screen or -1
const S_CHOSEN = 2; // chosen size index or -1
const S_BOUGHT = 3; // bought item or -1
const S_BOUGHT_SIZE = 4;

interface ShopItem {
  color: number;
  material: number;
  price: number; // index into PRICES
  sizes: number; // bitmask over SIZES
}

export interface ShopWorld {
  category: number;
  color: number;
  material: number;
  size: number;
  cap: number; // price index
  /** the catalogue, indexed like ITEM_IDS */
  items: readonly ShopItem[];
  /** tie-break order of items in results (a permutation) */
  rank: readonly number[];
  target: number;
  /** vocabulary id of the word this task's category is listed under (the universe's, or the task's own with randomFacts) */
  listedId: number;
}

export class ShopEnv extends MicroEnv<ShopWorld> {
  /** universe: each product line's index into SHOP_LISTING_WORDS[category], at category · MATERIALS.length + material */
  readonly listedAs: readonly number[];
  /** negative control / skill-reading teacher training: every task draws its listing word (EnvOptions.randomFacts) */
  readonly randomFacts: boolean;
  private readonly colorById: Int8Array;
  private readonly materialById: Int8Array;
  private readonly sizeById: Int8Array;
  private readonly itemById: Int8Array;
  private readonly ids: {
    search: number;
    click: number;
    choose: number;
    buy: number;
    sizes: number;
    size: number;
    score: number;
  };
  private readonly itemIds: readonly number[];
  private readonly numIds: readonly number[];
  private readonly errors: Record<'noResults' | 'noItem' | 'noSize' | 'noPage' | 'bad', readonly number[]>;
  private readonly searchActions: readonly string[][];

  constructor(options: Partial<EnvOptions> = {}) {
    const o = resolveEnvOptions(options);
    const u = deriveRng(o.seed, hashString('shop-universe'));
    const listedAs: number[] = [];
    const skills: SkillEntry[] = [];
    SHOP_CATEGORIES.forEach((c, i) => {
      const words = SHOP_LISTING_WORDS[i] as readonly string[];
      for (const m of MATERIALS) {
        const k = u.int(words.length);
        listedAs.push(k);
        skills.push({
          keywords: [m, c],
          text: `${m} ${c} listed as ${words[k]}`,
          misleadingText: `${m} ${c} listed as ${otherWord(words, k, u)}`,
        });
      }
    });
    super({ name: 'shop', words: WORDS, heads: HEADS, limits: LIMITS, skills, stateSize: 5, randomFacts: true }, o);
    this.listedAs = listedAs;
    this.randomFacts = o.randomFacts === true;
    const v = this.vocab;
    const table = (words: readonly string[]): Int8Array => {
      const t = new Int8Array(v.size).fill(-1);
      words.forEach((w, i) => (t[v.id(w)] = i));
      return t;
    };
    this.colorById = table(COLORS);
    this.materialById = table(MATERIALS);
    this.sizeById = table(SIZES);
    this.itemById = table(ITEM_IDS);
    this.itemIds = ITEM_IDS.map((x) => v.id(x));
    this.numIds = PRICES.map((x) => v.id(x));
    this.ids = {
      search: v.id('search'),
      click: v.id('click'),
      choose: v.id('choose'),
      buy: v.id('buy'),
      sizes: v.id('sizes'),
      size: v.id('size'),
      score: v.id('score'),
    };
    this.errors = {
      noResults: v.encode('no results'),
      noItem: v.encode('no such item'),
      noSize: v.encode('no such size'),
      noPage: v.encode('no item page'),
      bad: v.encode('bad command'),
    };
    // the random baseline's searches: a listing word alone, or with one colour and one material
    const searches: string[][] = [];
    for (const syn of SHOP_SYNONYMS.flat()) {
      searches.push(['search', syn]);
      for (const c of COLORS) for (const m of MATERIALS) searches.push(['search', syn, c, m]);
    }
    this.searchActions = searches;
  }

  protected draft(rng: Rng): WorldDraft<ShopWorld> {
    const category = rng.int(SHOP_CATEGORIES.length);
    const color = rng.int(COLORS.length);
    const material = rng.int(MATERIALS.length);
    const size = rng.int(SIZES.length);
    const cap = rng.pick(CAPS);
    const other = (n: number, not: number): number => (not + 1 + rng.int(n - 1)) % n;
    const sizesWith = (s: number): number => (1 << s) | rng.int(1 << SIZES.length);
    const items: ShopItem[] = [
      { color, material, price: rng.int(cap + 1), sizes: sizesWith(size) }, // the target
      { color, material, price: cap + 1 + rng.int(PRICES.length - cap - 1), sizes: sizesWith(size) }, // over the cap
      { color, material: other(MATERIALS.length, material), price: rng.int(PRICES.length), sizes: sizesWith(size) },
      { color: other(COLORS.length, color), material, price: rng.int(PRICES.length), sizes: sizesWith(size) },
      {
        color: other(COLORS.length, color),
        material: other(MATERIALS.length, material),
        price: rng.int(PRICES.length),
        sizes: sizesWith(rng.int(SIZES.length)),
      },
      // neither colour nor material, under the cap (shown only after the full and partial matches)
      {
        color: other(COLORS.length, color),
        material: other(MATERIALS.length, material),
        price: rng.int(cap + 1),
        sizes: sizesWith(rng.int(SIZES.length)),
      },
    ];
    // shuffle the items over the ids; rank is the tie-break order of the results
    const order = rng.shuffle(items.map((_, i) => i));
    const shuffled = order.map((k) => items[k] as ShopItem);
    const target = order.indexOf(0);
    const rank = rng.shuffle(items.map((_, i) => i));
    const goal = `${COLORS[color]} ${MATERIALS[material]} ${SHOP_CATEGORIES[category]} size ${SIZES[size]} under ${PRICES[cap]}`;
    const words = SHOP_LISTING_WORDS[category] as readonly string[];
    // randomFacts draws only when on, so the fixed universe's tasks are unchanged
    const listed = this.randomFacts ? rng.int(words.length) : this.listingIndex(category, material);
    const line = `${MATERIALS[material]} ${SHOP_CATEGORIES[category]}`;
    return {
      goal,
      world: {
        category,
        color,
        material,
        size,
        cap,
        items: shuffled,
        rank,
        target,
        listedId: this.vocab.id(words[listed] as string),
      },
      splitKey: goal,
      skill: this.randomFacts
        ? {
            text: `${line} listed as ${words[listed]}`,
            misleadingText: `${line} listed as ${otherWord(words, listed, rng)}`,
          }
        : undefined,
    };
  }

  /** the universe's thesaurus index for a product line (category, material) */
  listingIndex(category: number, material: number): number {
    return this.listedAs[category * MATERIALS.length + material] as number;
  }

  initState(_world: ShopWorld, s: Int32Array, o: number): void {
    s[o + S_RESULTS] = 0;
    s[o + S_PAGE] = -1;
    s[o + S_CHOSEN] = -1;
    s[o + S_BOUGHT] = -1;
    s[o + S_BOUGHT_SIZE] = -1;
  }

  apply(world: ShopWorld, s: Int32Array, o: number, action: readonly number[], nArgs: number, out: number[]): number {
    const ids = this.ids;
    const head = action[0] as number;
    const a1 = action[1] as number;
    if (head === ids.search) {
      if (nArgs < 1 || nArgs > 3) return this.reject(this.errors.bad, out);
      let listed = false;
      let wantColor = -1;
      let wantMaterial = -1;
      for (let k = 1; k <= nArgs; k++) {
        const t = action[k] as number;
        if (t === world.listedId) listed = true;
        if (this.colorById[t] !== -1) wantColor = this.colorById[t] as number;
        if (this.materialById[t] !== -1) wantMaterial = this.materialById[t] as number;
      }
      s[o + S_PAGE] = -1;
      s[o + S_RESULTS] = 0;
      if (!listed) {
        for (const t of this.errors.noResults) out.push(t);
        return Outcome.none; // an empty result page is not an error
      }
      // top RESULTS_SHOWN by (matches desc, price asc, rank asc): selection without allocation
      let shownMask = 0;
      for (let shown = 0; shown < RESULTS_SHOWN; shown++) {
        let best = -1;
        let bestKey = -1;
        for (let r = 0; r < world.rank.length; r++) {
          const i = world.rank[r] as number;
          if (shownMask & (1 << i)) continue;
          const it = world.items[i] as ShopItem;
          const matches = (it.color === wantColor ? 1 : 0) + (it.material === wantMaterial ? 1 : 0);
          const key = matches * PRICES.length + (PRICES.length - 1 - it.price);
          if (key > bestKey) {
            bestKey = key;
            best = i;
          }
        }
        shownMask |= 1 << best;
        out.push(this.itemIds[best] as number, this.numIds[(world.items[best] as ShopItem).price] as number);
      }
      s[o + S_RESULTS] = shownMask;
      return Outcome.none;
    }
    if (head === ids.click) {
      if (nArgs !== 1) return this.reject(this.errors.bad, out);
      const i = this.itemById[a1] as number;
      if (i < 0 || ((s[o + S_RESULTS] as number) & (1 << i)) === 0) return this.reject(this.errors.noItem, out);
      s[o + S_PAGE] = i;
      s[o + S_CHOSEN] = -1;
      const it = world.items[i] as ShopItem;
      out.push(this.vocab.id(COLORS[it.color] as string), this.vocab.id(MATERIALS[it.material] as string));
      out.push(this.numIds[it.price] as number, ids.sizes);
      for (let z = 0; z < SIZES.length; z++) if (it.sizes & (1 << z)) out.push(this.vocab.id(SIZES[z] as string));
      return Outcome.none;
    }
    if (head === ids.choose) {
      if (nArgs !== 1) return this.reject(this.errors.bad, out);
      const page = s[o + S_PAGE] as number;
      if (page < 0) return this.reject(this.errors.noPage, out);
      const z = this.sizeById[a1] as number;
      if (z < 0 || ((world.items[page] as ShopItem).sizes & (1 << z)) === 0)
        return this.reject(this.errors.noSize, out);
      s[o + S_CHOSEN] = z;
      out.push(ids.size, a1);
      return Outcome.none;
    }
    if (head === ids.buy) {
      if (nArgs !== 0) return this.reject(this.errors.bad, out);
      const page = s[o + S_PAGE] as number;
      if (page < 0) return this.reject(this.errors.noPage, out);
      s[o + S_BOUGHT] = page;
      s[o + S_BOUGHT_SIZE] = s[o + S_CHOSEN] as number;
      const matched = this.matched(world, s, o);
      out.push(ids.score, this.vocab.id(SCORES[matched] as string));
      return Outcome.done | (matched === ATTRIBUTES ? Outcome.success : 0);
    }
    return this.reject(this.errors.bad, out);
  }

  /** attributes of the instruction matched by the bought item, 0..5 */
  private matched(world: ShopWorld, s: Int32Array, o: number): number {
    const b = s[o + S_BOUGHT] as number;
    if (b < 0) return 0;
    const it = world.items[b] as ShopItem;
    return (
      1 + // category: the store lists only the instruction's category under its word
      (it.color === world.color ? 1 : 0) +
      (it.material === world.material ? 1 : 0) +
      (s[o + S_BOUGHT_SIZE] === world.size ? 1 : 0) +
      (it.price <= world.cap ? 1 : 0)
    );
  }

  score(world: ShopWorld, s: Int32Array, o: number): number {
    return this.matched(world, s, o) / ATTRIBUTES;
  }

  validActions(world: ShopWorld, s: Int32Array, o: number): string[][] {
    const acts: string[][] = [...this.searchActions];
    const results = s[o + S_RESULTS] as number;
    ITEM_IDS.forEach((id, i) => results & (1 << i) && acts.push(['click', id]));
    const page = s[o + S_PAGE] as number;
    if (page >= 0) {
      SIZES.forEach((z, k) => (world.items[page] as ShopItem).sizes & (1 << k) && acts.push(['choose', z]));
      acts.push(['buy']);
    }
    return acts;
  }

  expertPlan(world: ShopWorld): string[][] {
    return [
      [
        'search',
        this.vocab.words[world.listedId] as string,
        COLORS[world.color] as string,
        MATERIALS[world.material] as string,
      ],
      ['click', ITEM_IDS[world.target] as string],
      ['choose', SIZES[world.size] as string],
      ['buy'],
    ];
  }

  /**
   * Searches with each listing word in turn (colour and material from the goal); opens the results under the cap
   * until a page shows the colour, material and size; chooses the size and buys. Reads only the goal and the
   * observations.
   */
  private static *shopFor(goal: string, words: readonly string[]): Generator<string[], void, readonly string[]> {
    const [color, material, , , size, , cap] = goal.split(' ') as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    for (const w of words) {
      const results = yield ['search', w, color, material]; // "p3 40 p1 20 p5 30" | "no results"
      if (results[0] === 'no') continue;
      for (let k = 0; k + 1 < results.length; k += 2) {
        if (!(Number(results[k + 1]) <= Number(cap))) continue;
        const page = yield ['click', results[k] as string]; // "red cotton 40 sizes s m"
        if (page[0] === color && page[1] === material && page.slice(page.indexOf('sizes') + 1).includes(size)) {
          yield ['choose', size];
          yield ['buy'];
          return;
        }
      }
    }
  }

  explorer(task: EnvTask<ShopWorld>, rng: Rng): EpisodePolicy {
    const words = rng.shuffle([...(SHOP_LISTING_WORDS[task.world.category] as readonly string[])]);
    return scriptedPolicy(() => ShopEnv.shopFor(task.goal, words));
  }

  skillFollower(task: EnvTask<ShopWorld>, rng: Rng): EpisodePolicy {
    const told = task.skill.split(' ').at(-1) as string; // "<material> <category> listed as <word>"
    const rest = rng.shuffle((SHOP_LISTING_WORDS[task.world.category] as readonly string[]).filter((w) => w !== told));
    return scriptedPolicy(() => ShopEnv.shopFor(task.goal, [told, ...rest]));
  }
}
