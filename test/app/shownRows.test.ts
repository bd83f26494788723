import { describe, expect, it } from 'vitest';
import { shownRows } from '../../src/app/shownRows';

const rows = Array.from({ length: 20 }, (_, i) => i * 10);

describe('the rows a long table shows at first', () => {
  it('shows every row of a short table, or of any table once asked', () => {
    expect(shownRows(rows, 3, false, 20).hidden).toBe(0);
    expect(shownRows(rows, 3, true, 4).shown).toHaveLength(20);
  });

  it('shows the first half of the limit and the other half around the focus, in order, and counts the rest', () => {
    const { shown, hidden } = shownRows(rows, 15, false, 6);
    expect(shown.map((s) => s.index)).toEqual([0, 1, 2, 14, 15, 16]);
    expect(shown.map((s) => s.row)).toEqual([0, 10, 20, 140, 150, 160]);
    expect(hidden).toBe(14);
  });

  it('shows only the head when there is no focus row', () => {
    expect(shownRows(rows, null, false, 6).shown.map((s) => s.index)).toEqual([0, 1, 2]);
  });
});
