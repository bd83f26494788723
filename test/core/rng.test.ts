import { describe, expect, it } from 'vitest';
import { createRng, deriveRng, fromState, hashInts, hashString } from '../../src/core/rng';

describe('rng', () => {
  it('gives the pinned sfc32 stream for seed 42 (same on every platform)', () => {
    const r = createRng(42);
    expect(r.state()).toEqual([525187462, 1481333944, 1177879824, 3317318729]);
    expect(r.next()).toBe(0.23955312534235418);
    expect(r.next()).toBe(0.5859209857881069);
    expect(r.int(1000)).toBe(680);
    expect(r.int(7)).toBe(5);
  });

  it('resumes from a state snapshot exactly where it left off', () => {
    const a = createRng(7);
    for (let i = 0; i < 13; i++) a.next();
    const b = fromState(JSON.parse(JSON.stringify(a.state())) as number[]);
    for (let i = 0; i < 50; i++) expect(b.next()).toBe(a.next());
  });

  it('draws integers in range with roughly uniform frequencies', () => {
    const r = createRng(1);
    const counts = new Array<number>(6).fill(0);
    for (let i = 0; i < 60_000; i++) counts[r.int(6)]! += 1;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(400); // ~4.4 sigma
    for (let i = 0; i < 1000; i++) {
      const x = r.next();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
  });

  it('forks children that differ from the parent and from each other', () => {
    const r = createRng(5);
    const a = r.fork();
    const b = r.fork();
    const xs = [a.next(), b.next(), r.next()];
    expect(new Set(xs).size).toBe(3);
  });

  it('shuffles to a permutation and picks members', () => {
    const r = createRng(9);
    const s = r.shuffle([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([...s].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(['a', 'b']).toContain(r.pick(['a', 'b']));
  });

  it('hashes are order-sensitive and deterministic', () => {
    expect(hashInts(1, 2)).not.toBe(hashInts(2, 1));
    expect(hashInts(1, 2)).toBe(hashInts(1, 2));
    expect(hashString('nginx')).toBe(hashString('nginx'));
    expect(deriveRng(1, 2).next()).toBe(deriveRng(1, 2).next());
  });

  it('rejects seeds, states and bounds it cannot honour, naming the value', () => {
    expect(() => createRng(-1)).toThrow(/seed.*-1/);
    expect(() => createRng(1.5)).toThrow(/seed/);
    expect(() => fromState([1, 2, 3])).toThrow(/state/);
    expect(() => createRng(0).int(0)).toThrow(/positive integer/);
  });
});
