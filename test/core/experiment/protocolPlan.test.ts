import { describe, expect, it } from 'vitest';
import { fixedSweeps, plannedSweeps, sweepCommand } from '../../../src/core/experiment/protocolPlan';

describe('the protocol plan', () => {
  it('runs RetireOPD first, then the other story arms and the ablations, each into its own folder', () => {
    const plan = plannedSweeps('house', [1000, 1001], 'runs/p', false);
    expect(plan.map((p) => p.folder)).toEqual([
      'retire',
      'opd',
      'grpo',
      'competence-only',
      'alignment-only',
      'misleading0-retire',
      'misleading0-opd',
      'lambda',
    ]);
    expect(sweepCommand(plan[0]!)).toBe(
      'npm run sweep -- --presets retire-house --seeds 1000,1001 --out runs/p/retire',
    );
    expect(plan.find((p) => p.folder === 'misleading0-opd')!.argv).toEqual([
      '--presets',
      'opd-house',
      '--seeds',
      '1000,1001',
      '--set',
      'env.misleadingSkillFraction=0',
      '--out',
      'runs/p/misleading0-opd',
    ]);
  });

  it('includes the negative control only where the environment has one', () => {
    expect(plannedSweeps('shell', [0], 'd', true).map((p) => p.folder)).toContain('control');
  });

  it('matches fixed:N to each seed’s trigger and skips seeds that never retired', () => {
    const plan = fixedSweeps(
      'shell',
      new Map([
        [1003, 75],
        [1001, null],
        [1000, 120],
      ]),
      'd',
    );
    expect(plan.map(sweepCommand)).toEqual([
      'npm run sweep -- --presets retire-shell --seeds 1000 --set student.schedule=fixed:120 --out d/fixed-1000',
      'npm run sweep -- --presets retire-shell --seeds 1003 --set student.schedule=fixed:75 --out d/fixed-1003',
    ]);
  });

  it('quotes an argument the shell would split', () => {
    expect(sweepCommand({ arm: 'retire', folder: 'retire', argv: ['--out', "my runs/it's"] })).toBe(
      `npm run sweep -- --out 'my runs/it'\\''s'`,
    );
  });
});
