import { describe, expect, it } from 'vitest';
import { playableRuns } from '../../src/app/demo/playableRuns';
import type { RunRecord } from '../../src/app/runs/runRecord';

// only the fields the choice reads; the rest of a record plays no part
const run = (id: string, updatedAt: number) => ({ id, updatedAt }) as RunRecord;

describe('playableRuns', () => {
  it('lists every run, in the stored order, when they fit', () => {
    const runs = [run('a', 1), run('b', 3), run('c', 2)];
    expect(playableRuns(runs, undefined, 3).map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });

  it('lists the most recently written runs first when there are more than fit', () => {
    const runs = [run('a', 1), run('b', 4), run('c', 2), run('d', 3)];
    expect(playableRuns(runs, undefined, 2).map((r) => r.id)).toEqual(['b', 'd']);
  });

  it('keeps the playing run among them even when it is old, in place of the oldest listed', () => {
    const runs = [run('a', 1), run('b', 4), run('c', 2), run('d', 3)];
    expect(playableRuns(runs, 'a', 2).map((r) => r.id)).toEqual(['b', 'a']);
    expect(playableRuns(runs, 'b', 2).map((r) => r.id)).toEqual(['b', 'd']);
  });

  it('holds 200 options for 10,000 stored runs', () => {
    const runs = Array.from({ length: 10_000 }, (_, i) => run(`r${i}`, i));
    const shown = playableRuns(runs, undefined);
    expect(shown).toHaveLength(200);
    expect(shown[0]?.id).toBe('r9999');
  });
});
