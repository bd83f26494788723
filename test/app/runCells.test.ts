// The runs table's cells: a run that ended before its test shows "–" and why, never "NaN%".
import { describe, expect, it } from 'vitest';
import { show } from '../../src/app/runs/runCells';
import type { RunRecord } from '../../src/app/runs/runRecord';
import { summary } from './runFixtures';
import { freshRecord } from './runRecordFixtures';

const withSuccess = (status: RunRecord['status'], successRate: number): RunRecord => {
  const s = summary('completed', 10);
  return { ...freshRecord('r1'), status, summary: { ...s, test: { ...s.test, successRate } } };
};

describe('the runs table’s cells', () => {
  it('shows the final success in per cent', () => {
    expect(show(withSuccess('completed', 0.8125), 'success')).toBe('81.3%');
  });

  it('shows "–" and why for a run stopped or failed before its test', () => {
    expect(show(withSuccess('stopped', Number.NaN), 'success')).toBe('– (stopped before the test)');
    expect(show(withSuccess('interrupted', Number.NaN), 'success')).toBe('– (stopped before the test)');
    expect(show(withSuccess('failed', Number.NaN), 'success')).toBe('– (failed before the test)');
    expect(show({ ...freshRecord('r2'), summary: null }, 'success')).toBe('–');
  });
});
