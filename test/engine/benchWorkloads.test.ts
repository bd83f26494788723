// The shared benchmark module's pure parts: workload parsing (named errors) and the timing summary. The workloads
// themselves are exercised by `npm run bench` / `npm run bench:browser`, never timed in tests.
import { describe, expect, it } from 'vitest';
import { parseWorkloads, timingStats, WORKLOADS } from '../../src/engine/benchWorkloads';

describe('parseWorkloads', () => {
  it('accepts a comma-separated subset in the given order and ignores empty items', () => {
    expect(parseWorkloads('loss,w1,')).toEqual(['loss', 'w1']);
    expect(parseWorkloads(WORKLOADS.join(','))).toEqual([...WORKLOADS]);
  });

  it('names an unknown workload and the accepted ones', () => {
    expect(() => parseWorkloads('w1,w3')).toThrow("unknown workload 'w3' (expected w1, w2cached, w2uncached, loss)");
  });
});

describe('timingStats', () => {
  it('reports the upper median, min, max (rounded to 0.1 ms) and the count', () => {
    expect(timingStats([30, 10.04, 20])).toEqual({ medianMs: 20, minMs: 10, maxMs: 30, n: 3 });
    // even count: the upper of the two middle values (sorted 1, 2, 3, 4 → 3)
    expect(timingStats([4, 1, 3, 2])).toEqual({ medianMs: 3, minMs: 1, maxMs: 4, n: 4 });
  });
});
