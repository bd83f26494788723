import { describe, expect, it } from 'vitest';
import { checkpointName, checkpointRunOrder, parseCheckpointName } from '../../../src/core/runLog/checkpointName';

describe('checkpoint names', () => {
  it('pad the completed steps to six digits after the stage', () => {
    expect(checkpointName('student', 40)).toBe('student-000040');
    expect(checkpointName('sft', 0)).toBe('sft-000000');
  });

  it('parse back to the stage and step they were made from', () => {
    expect(parseCheckpointName('student-000040')).toEqual({ stage: 'student', step: 40 });
    expect(parseCheckpointName(checkpointName('teacher', 1234567))).toEqual({ stage: 'teacher', step: 1234567 });
  });

  it('refuse names that are not a checkpoint’s: unknown stage, short or missing step, extra text', () => {
    for (const name of ['warmup-000001', 'student-40', 'student-', 'student-000040x', 'LATEST', ''])
      expect(parseCheckpointName(name), name).toBeNull();
  });

  it('sort in run order: stage first, then steps', () => {
    const names = ['student-000005', 'sft-000100', 'teacher-000002', 'student-000010', 'evaluation-000000'];
    expect([...names].sort((a, b) => checkpointRunOrder(a) - checkpointRunOrder(b))).toEqual([
      'sft-000100',
      'teacher-000002',
      'student-000005',
      'student-000010',
      'evaluation-000000',
    ]);
    expect(checkpointRunOrder('latest')).toBe(-1);
  });
});
