import { describe, expect, it } from 'vitest';
import { calibrate, createEnv, formatCalibration } from '../../../src/core/env';

describe('calibration', () => {
  it('reports one row per split and policy, with the expert at 100% and the random policy near 0', () => {
    const env = createEnv('house', { seed: 1 });
    const rows = calibrate(env, { tasksPerSplit: 100, splits: ['validation'] });
    expect(rows.map((r) => r.policy)).toEqual(['expert', 'skillFollower', 'explorer', 'random']);
    expect(rows[0]).toMatchObject({ successRate: 1, meanReward: 1, meanTurns: 5, meanInvalid: 0, tasks: 100 });
    expect(rows[3]!.successRate).toBeLessThan(0.05);
    const table = formatCalibration(rows);
    expect(table.split('\n')).toHaveLength(2 + 4);
    expect(table).toContain('100.0%');
  });

  it('is deterministic for a policy seed', () => {
    const env = createEnv('shop', { seed: 1 });
    const a = calibrate(env, { tasksPerSplit: 50, splits: ['train'], policySeed: 4 });
    const b = calibrate(env, { tasksPerSplit: 50, splits: ['train'], policySeed: 4 });
    expect(b).toEqual(a);
  });
});
