import { describe, expect, it } from 'vitest';
import { protocolPage, protocolTables, type ProtocolRun } from '../../../src/core/experiment/protocolReport';
import type { RunSummary } from '../../../src/core/experiment/summary';

function run(
  arm: string,
  seed: number,
  success: number,
  extra: Partial<ProtocolRun> = {},
  trigger: number | null = 50,
): ProtocolRun {
  const summary = {
    seed,
    status: 'completed',
    test: { successRate: success },
    gate: { triggerStep: trigger },
  } as unknown as RunSummary;
  return { arm, seed, summary, lambdaOpd: 1, ...extra };
}

describe('protocolTables', () => {
  it('splits the λ ablation by λ_opd and pairs each value with RetireOPD on the same seeds', () => {
    const t = protocolTables([
      run('retire', 1000, 0.8),
      run('retire', 1001, 0.6),
      run('lambda', 1000, 0.5, { lambdaOpd: 0.1 }),
      run('lambda', 1001, 0.7, { lambdaOpd: 0.1 }),
      run('lambda', 1000, 0.2, { lambdaOpd: 0.01 }),
    ]);
    expect(t.ablations.map((r) => r.arm)).toEqual(['lambda=0.01', 'lambda=0.1']);
    const tenth = t.ablations[1]!;
    // differences 0.8 − 0.5 = 0.3 and 0.6 − 0.7 = −0.1
    expect(tenth.vsRetire!.mean).toBeCloseTo(0.1, 12);
    expect(tenth.vsRetire!.positive).toBe(1);
    expect(t.ablations[0]!.vsRetire!.seeds).toEqual([1000]);
  });

  it('repeats the story at a temperature every story run was also tested at, paired by seed at that temperature', () => {
    const at = (success: number, cold: number): Partial<ProtocolRun> => ({
      summary: {
        status: 'completed',
        test: { successRate: success },
        gate: { triggerStep: 50 },
        temperatureControl: [
          { temperature: 1, successRate: success, argEntropy: 0.1 },
          { temperature: 0.4, successRate: cold, argEntropy: 0.05 },
        ],
      } as unknown as RunSummary,
    });
    const t = protocolTables([
      run('retire', 1000, 0.5, at(0.5, 0.9)),
      run('retire', 1001, 0.6, at(0.6, 0.8)),
      run('opd', 1000, 0.7, at(0.7, 0.6)),
      run('opd', 1001, 0.7, at(0.7, 0.7)),
    ]);
    // T = 1: differences −0.2 and −0.1; T = 0.4: differences 0.3 and 0.1
    expect(t.story.find((r) => r.arm === 'opd')!.vsRetire!.mean).toBeCloseTo(-0.15, 12);
    expect(t.storyAt.map((s) => s.temperature)).toEqual([0.4]);
    const opdCold = t.storyAt[0]!.rows.find((r) => r.arm === 'opd')!;
    expect(opdCold.vsRetire!.mean).toBeCloseTo(0.2, 12);
    expect(opdCold.vsRetire!.positive).toBe(2);
    expect(t.storyAt[0]!.rows.find((r) => r.arm === 'retire')!.success.mean).toBeCloseTo(0.85, 12);
    // a temperature only some story runs have is not tabulated
    const partial = protocolTables([run('retire', 1000, 0.5, at(0.5, 0.9)), run('opd', 1000, 0.7)]);
    expect(partial.storyAt).toEqual([]);
  });

  it('names the RetireOPD seeds that never retired (no fixed:N run can match them)', () => {
    const t = protocolTables([run('retire', 1000, 0.8, {}, null), run('retire', 1001, 0.6, {}, 40)]);
    expect(t.unmatchedFixed).toEqual([1000]);
    expect(t.fixedSteps).toEqual([
      { seed: 1000, step: null },
      { seed: 1001, step: 40 },
    ]);
  });

  it('leaves failed and interrupted runs out of every table', () => {
    const failed = run('opd', 1001, 0.9);
    (failed.summary as { status: string }).status = 'failed';
    const t = protocolTables([run('retire', 1000, 0.8), run('opd', 1000, 0.7), failed]);
    expect(t.story.find((r) => r.arm === 'opd')!.success.n).toBe(1);
  });

  it('counts the alignment decisions over the replayed RetireOPD runs only', () => {
    const decided = {
      windows: 4,
      keptByAlignment: 1,
      keptSteps: [10],
      adaptiveTrigger: 20,
      competenceOnlyTrigger: 10,
      triggerDiffers: true,
    };
    const t = protocolTables([
      run('retire', 1000, 0.8, { alignment: decided }),
      run('retire', 1001, 0.8, {
        alignment: { ...decided, keptByAlignment: 0, keptSteps: [], competenceOnlyTrigger: 20, triggerDiffers: false },
      }),
      run('retire', 1002, 0.8, { alignment: null }),
    ]);
    expect(t.alignmentDecided).toEqual({ k: 1, n: 2 });
    // the runs' own trigger is 50 (run()), the replays say 20: both replayed seeds are flagged
    expect(t.replayMismatch).toEqual([1000, 1001]);
    const page = protocolPage(t, {
      env: 'shell',
      seedSet: 'reporting',
      seeds: [1000, 1009],
      commit: 'abc1234',
      command: 'x',
      date: '2026-12-02',
    });
    expect(page).toContain('| 1002 | – | – | – | log not replayable |');
    expect(page).toContain('No ablation runs in this folder.');
    expect(page).toContain('Caution: on seed(s) 1000, 1001 the replayed adaptive trigger is not the run’s own');
  });

  it('names the planned arms with no run and the seeds an arm lacks, and says nothing when the folder is complete', () => {
    const seeds = [1000, 1001, 1002, 1003];
    const arms = ['retire', 'opd', 'grpo', 'fixed', 'lambda'];
    const runs = [
      ...seeds.map((s) => run('retire', s, 0.8, {}, s === 1003 ? null : 50)),
      run('opd', 1000, 0.7),
      run('opd', 1001, 0.7),
      run('opd', 1003, 0.7),
      // fixed:N is expected on the three seeds that retired only
      run('fixed', 1000, 0.8),
      run('fixed', 1001, 0.8),
      run('fixed', 1002, 0.8),
      // λ: a seed counts once both values ran on it
      ...seeds.map((s) => run('lambda', s, 0.5, { lambdaOpd: 0.1 })),
      run('lambda', 1000, 0.2, { lambdaOpd: 0.01 }),
    ];
    const t = protocolTables(runs, { arms, seeds });
    expect(t.coverage).toEqual({
      notRun: ['grpo'],
      partial: [
        { arm: 'opd', missingSeeds: [1002] },
        { arm: 'lambda', missingSeeds: [1001, 1002, 1003] },
      ],
    });
    const meta = { env: 'house', seedSet: 'reporting' as const, seeds, commit: 'c', command: 'x', date: 'd' };
    const page = protocolPage(t, meta);
    expect(page).toContain('**Incomplete: the tables below cover only the runs this folder holds.**');
    expect(page).toContain('- Not run: pure GRPO.');
    expect(page).toContain('- RetireOPD, λ_opd ∈ {0.01, 0.1}: no run for seed(s) 1001–1003.');
    expect(page).toContain('- OPD throughout: no run for seed(s) 1002.');
    const complete = protocolTables(runs.slice(0, 4), { arms: ['retire'], seeds });
    expect(complete.coverage).toEqual({ notRun: [], partial: [] });
    expect(protocolPage(complete, meta)).not.toContain('Incomplete');
    // no plan given: no coverage check
    expect(protocolTables(runs).coverage).toBeNull();
  });

  it('writes a misleading entry’s text as literal Markdown: a | or <b> in it stays in its cell', () => {
    const facts = [{ skill: 'cat a | grep <b>', tasks: 2, successRate: 1 }];
    const withFacts = (arm: string, seed: number) => {
      const r = run(arm, seed, 0.5);
      return { ...r, summary: { ...r.summary, misleadingFacts: facts } as RunSummary };
    };
    const t = protocolTables([withFacts('retire', 1000), withFacts('opd', 1000)]);
    const meta = { env: 'shell', seedSet: 'reporting' as const, seeds: [1000], commit: 'c', command: 'x', date: 'd' };
    const row = protocolPage(t, meta)
      .split('\n')
      .find((l) => l.startsWith('| cat a'));
    expect(row).toBe('| cat a \\| grep &lt;b&gt; | 2 | 1 of 1 | 100.0 | 1 of 1 | 100.0 |');
  });
});
