import { describe, expect, it } from 'vitest';
import { dragRange, logRange, positivePart, seriesTable, valuesAt } from '../../src/app/charts/chartScale';

describe('chartScale', () => {
  it('keeps only the positive values for a log axis and counts the finite ones it leaves out', () => {
    const r = positivePart([
      { x: 1, y: 0.5 },
      { x: 2, y: 0 },
      { x: 3, y: -1 },
      { x: 4, y: 2 },
    ]);
    expect(r.points.map((p) => p.x)).toEqual([1, 4]);
    expect(r.dropped).toBe(2);
  });

  it('spans a log axis over whole decades around the positive values, a decade for a single one, none for none', () => {
    expect(logRange([0.2, 0.9, -3, 0])).toEqual([0.1, 1]);
    expect(logRange([0.003, 45])).toEqual([0.001, 100]);
    expect(logRange([1])).toEqual([1, 10]);
    expect(logRange([0, -1])).toBeNull();
  });

  it('orders a drag either way and reads a click (no width) as no range', () => {
    expect(dragRange(40, 10)).toEqual([10, 40]);
    expect(dragRange(10, 40)).toEqual([10, 40]);
    expect(dragRange(10, 10)).toBeNull();
    expect(dragRange(null, 10)).toBeNull();
  });

  it("reads each line's value at the step nearest the pointer, the earlier on a tie, and skips empty lines", () => {
    const lines = [
      {
        name: 'a',
        points: [
          { x: 0, y: 1 },
          { x: 10, y: 2 },
        ],
      },
      { name: 'b', points: [{ x: 7, y: 3 }] },
      { name: 'c', points: [] },
    ];
    expect(valuesAt(lines, 5)).toEqual([
      { name: 'a', x: 0, y: 1 },
      { name: 'b', x: 7, y: 3 },
    ]);
    expect(valuesAt(lines, 9)[0]).toEqual({ name: 'a', x: 10, y: 2 });
  });

  it('tabulates several lines by step, a blank where a line has no value at a step', () => {
    const t = seriesTable([
      { name: 'a', points: [{ x: 2, y: 0.5 }] },
      {
        name: 'b',
        points: [
          { x: 1, y: 0.1 },
          { x: 2, y: 0.2 },
        ],
      },
    ]);
    expect(t.columns).toEqual(['a', 'b']);
    expect(t.rows).toEqual([
      { x: 1, values: [null, 0.1] },
      { x: 2, values: [0.5, 0.2] },
    ]);
  });
});
