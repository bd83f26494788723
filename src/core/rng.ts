// Small seeded PRNG shared by the environments and the trainer. sfc32 (Chris Doty-Humphrey's Small Fast Counting
// generator, 128-bit state) seeded through splitmix32. Only 32-bit integer ops (Math.imul, >>>) and one exact
// division by 2^32, so the same seed gives the same stream on every platform. The state is four uint32 numbers:
// a trainer can checkpoint it as plain JSON and resume with fromState().

/** sfc32 state: four unsigned 32-bit integers [a, b, c, counter]. */
export type RngState = readonly [number, number, number, number];

export interface Rng {
  /** uniform in [0, 1), 32 bits of resolution */
  next(): number;
  /** uniform integer in [0, n); n must be a positive integer ≤ 2^32 */
  int(n: number): number;
  /** uniform element of a non-empty array */
  pick<T>(items: readonly T[]): T;
  /** Fisher–Yates shuffle in place; returns the same array */
  shuffle<T>(items: T[]): T[];
  /** an independent child generator; advances this generator by two draws */
  fork(): Rng;
  /** a copy of the current state (plain numbers) */
  state(): RngState;
}

const TWO_POW_32 = 4294967296;

/** murmur3's 32-bit finaliser: a bijection on uint32 with good avalanche. */
function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash integers (each taken modulo 2^32) into one uint32 seed; order matters. For deriving per-task seeds. */
export function hashInts(...parts: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = fmix32(Math.imul(h ^ (p >>> 0), 0x01000193) + 0x9e3779b9);
  }
  return h >>> 0;
}

/** FNV-1a over UTF-16 code units, finalised; locale-independent. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  }
  return fmix32(h);
}

function checkSeed(seed: number): void {
  if (!Number.isInteger(seed) || seed < 0 || seed >= TWO_POW_32) {
    throw new Error(`rng seed: expected an integer in [0, 2^32), got ${seed}`);
  }
}

class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(a: number, b: number, c: number, d: number) {
    this.a = a >>> 0;
    this.b = b >>> 0;
    this.c = c >>> 0;
    this.d = d >>> 0;
  }

  private nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  next(): number {
    return this.nextUint32() / TWO_POW_32;
  }

  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > TWO_POW_32) {
      throw new Error(`rng.int: expected a positive integer ≤ 2^32, got ${n}`);
    }
    // rejection sampling: exactly uniform
    const limit = TWO_POW_32 - (TWO_POW_32 % n);
    for (;;) {
      const x = this.nextUint32();
      if (x < limit) return x % n;
    }
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('rng.pick: empty array');
    return items[this.int(items.length)] as T;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }

  fork(): Rng {
    return createRng(hashInts(this.nextUint32(), this.nextUint32()));
  }

  state(): RngState {
    return [this.a, this.b, this.c, this.d];
  }
}

/** A generator from a uint32 seed (integer in [0, 2^32)). */
export function createRng(seed: number): Rng {
  checkSeed(seed);
  // splitmix32 expands the seed into the 128-bit state; then 12 warm-up rounds as recommended for sfc32
  let s = seed >>> 0;
  const words: number[] = [];
  for (let i = 0; i < 4; i++) {
    s = (s + 0x9e3779b9) >>> 0;
    words.push(fmix32(s));
  }
  const rng = new Sfc32(words[0] ?? 0, words[1] ?? 0, words[2] ?? 0, words[3] ?? 0);
  for (let i = 0; i < 12; i++) rng.next();
  return rng;
}

/** Resume a generator from a state() snapshot. */
export function fromState(state: readonly number[]): Rng {
  if (state.length !== 4 || !state.every((v) => Number.isInteger(v) && v >= 0 && v < TWO_POW_32)) {
    throw new Error(`rng state: expected four integers in [0, 2^32), got [${state.join(', ')}]`);
  }
  return new Sfc32(state[0] ?? 0, state[1] ?? 0, state[2] ?? 0, state[3] ?? 0);
}

/** A generator for a named sub-stream of a seed, e.g. deriveRng(seed, TASK_SALT, splitId, index). */
export function deriveRng(...parts: readonly number[]): Rng {
  return createRng(hashInts(...parts));
}
