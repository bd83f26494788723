// The comparison table as cells, and comparison.md rendered from them.
import { describe, expect, it } from 'vitest';
import { comparisonTable, formatComparisonTable, type ComparisonRow } from '../../../src/core/experiment/comparison';

const row = (point: Record<string, unknown>, seeds: number, successMean: number): ComparisonRow => ({
  point,
  seeds,
  successMean,
  successStd: 0.02,
  successCi95: 0.05,
  stepsToTarget: Array.from({ length: seeds }, (_, i) => (i === 0 ? 80 : null)),
  triggerSteps: Array.from({ length: seeds }, (_, i) => (i === 0 ? 95 : null)),
  teacherForwardsSavedMean: 305,
  wallSecondsMean: 190.25,
  argEntropyMean: Number.NaN,
  matched: null,
});

describe('the comparison table', () => {
  it('is cells: the axis, seeds, success ± interval, steps to target, trigger steps, forwards saved, wall time', () => {
    const table = comparisonTable([
      row({ 'student.schedule': 'adaptive' }, 2, 0.846),
      row({ 'student.schedule': 'never' }, 1, 0.824),
    ]);
    expect(table.header).toEqual([
      'student.schedule',
      'seeds',
      'test success % (mean ± 95% CI)',
      'steps to 0.9·S_T',
      'trigger step',
      'teacher forwards saved',
      'wall s',
    ]);
    expect(table.rows).toEqual([
      ['adaptive', '2', '84.6 ± 5.0', '80, –', '95, –', '305.0', '190.3'],
      ['never', '1', '82.4 ± –', '80', '95', '305.0', '190.3'],
    ]);
  });

  it('renders as Markdown with a `|` inside a value escaped, so the columns stay where they are', () => {
    const md = formatComparisonTable([row({ 'student.schedule': 'fixed:30|linear:40' }, 1, 0.5)]);
    const lines = md.split('\n');
    expect(lines[1]).toBe('|---|---|---|---|---|---|---|');
    expect(lines[2]).toBe('| fixed:30\\|linear:40 | 1 | 50.0 ± – | 80 | 95 | 305.0 | 190.3 |');
    // seven cells once the escaped bar is read back as text
    expect(lines[2]!.split(/(?<!\\)\|/).slice(1, -1)).toHaveLength(7);
  });
});
