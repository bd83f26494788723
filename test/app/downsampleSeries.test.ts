import { describe, expect, it } from 'vitest';
import { downsampleSeries, finitePoints } from '../../src/app/charts/downsampleSeries';

describe('chart series downsampling', () => {
  it('drops missing and non-finite values', () => {
    expect(
      finitePoints([
        { x: 1, y: 0.5 },
        { x: 2, y: null },
        { x: 3, y: Number.NaN },
        { x: 4, y: Infinity },
        { x: 5, y: undefined },
        { x: 6, y: -1 },
      ]),
    ).toEqual([
      { x: 1, y: 0.5 },
      { x: 6, y: -1 },
    ]);
  });

  it('leaves a short series as it is', () => {
    const pts = [
      { x: 1, y: 2 },
      { x: 2, y: 3 },
    ];
    expect(downsampleSeries(pts, 10)).toEqual(pts);
  });

  it('reduces a long series to the budget, keeping its ends and its spike (LTTB)', () => {
    const pts = Array.from({ length: 10_000 }, (_, i) => ({ x: i, y: i === 4321 ? 100 : Math.sin(i / 500) }));
    const out = downsampleSeries(pts, 200);
    expect(out).toHaveLength(200);
    expect(out[0]).toEqual({ x: 0, y: 0 });
    expect(out.at(-1)).toEqual(pts.at(-1));
    expect(out.some((p) => p.x === 4321 && p.y === 100)).toBe(true);
    for (let i = 1; i < out.length; i++) expect(out[i]!.x).toBeGreaterThan(out[i - 1]!.x);
  });
});
