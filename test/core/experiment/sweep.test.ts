// Sweeps with temperature matching: the reference arm runs first for each seed and its probe argument-token entropy
// becomes the matched arm's evaluation.matchArgEntropy; the comparison table gains the matched-temperature column.
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_CONFIG, resolveConfig } from '../../../src/core/experiment/config';
import { loadPreset } from '../../../src/core/experiment/preset';
import type { RunSummary } from '../../../src/core/experiment/summary';
import { ci95, compareRuns, stepsToTarget, formatComparisonTable } from '../../../src/core/experiment/comparison';
import {
  expandSweep,
  parseSweepSpec,
  runSweep,
  sweepSizeRefusal,
  type SweepRun,
} from '../../../src/core/experiment/sweep';
import { seriesStats, validationPlotSvg } from '../../../src/core/experiment/sweepPlot';
import { summary as fixtureSummary } from '../../app/runFixtures';
import { lookupPreset } from '../../support/presets';

const lookup = lookupPreset;

/** A completed run whose probe argument entropy encodes its arm and seed (ActObs: 1.seed, ActionSFT: 0.5 + …). */
function fakeSummary(run: SweepRun): RunSummary {
  const lambdaObs = run.config.sft.lambdaObs;
  const target = run.config.evaluation.matchArgEntropy;
  return {
    ...fixtureSummary('completed'),
    seed: run.seed,
    lambdaObs,
    test: { ...fixtureSummary('completed').test, successRate: lambdaObs === 1 ? 0.6 : 0.4 },
    probeEntropy: { actionHead: 0.2, actionArg: lambdaObs === 1 ? 1 + run.seed / 10 : 0.5 },
    matchedTemperature:
      target === null
        ? null
        : {
            target,
            temperature: 1.5 + run.seed / 10,
            argEntropy: target,
            converged: true,
            successRate: 0.2,
            passAtK: {},
          },
  };
}

describe('sweep with temperature matching', () => {
  const spec = parseSweepSpec(
    {
      seeds: [0, 1, 2],
      axes: { 'sft.lambdaObs': [0, 1] },
      matchTemperature: { axis: 'sft.lambdaObs', reference: 1, matched: 0 },
    },
    DEFAULT_CONFIG,
  );
  const runs = expandSweep(DEFAULT_CONFIG, spec);

  it('runs the reference arm first for every seed and passes its argument entropy to the matched arm of that seed', async () => {
    const executed: { label: string; target: number | null }[] = [];
    const results = await runSweep(runs, spec, async (run) => {
      executed.push({ label: run.label, target: run.config.evaluation.matchArgEntropy });
      return fakeSummary(run);
    });
    expect(executed).toEqual([
      { label: 'sft.lambdaObs=1 seed=0', target: null },
      { label: 'sft.lambdaObs=1 seed=1', target: null },
      { label: 'sft.lambdaObs=1 seed=2', target: null },
      { label: 'sft.lambdaObs=0 seed=0', target: 1 },
      { label: 'sft.lambdaObs=0 seed=1', target: 1.1 },
      { label: 'sft.lambdaObs=0 seed=2', target: 1.2 },
    ]);
    // results come back in the sweep's own order, with the configs actually run
    expect(results.map((r) => r.run.label)).toEqual(runs.map((r) => r.label));
    expect(results[1]!.run.config.evaluation.matchArgEntropy).toBe(1.1);
    expect(results[4]!.run.config.evaluation.matchArgEntropy).toBeNull();
  });

  it('runs a matched arm without a target (and warns) when its reference run did not complete', async () => {
    const warnings: string[] = [];
    const targets: (number | null)[] = [];
    await runSweep(
      runs,
      spec,
      async (run) => {
        targets.push(run.config.evaluation.matchArgEntropy);
        const s = fakeSummary(run);
        return run.seed === 1 && run.config.sft.lambdaObs === 1 ? { ...s, status: 'failed' } : s;
      },
      { warn: (m) => warnings.push(m) },
    );
    expect(targets.slice(3)).toEqual([1, null, 1.2]);
    expect(warnings).toEqual([expect.stringContaining('sft.lambdaObs=0 seed=1: its reference run')]);
  });

  it('adds the matched-temperature column to the comparison table', async () => {
    const results = await runSweep(runs, spec, async (run) => fakeSummary(run));
    const table = formatComparisonTable(compareRuns(results.map((r) => ({ point: r.run.point, summary: r.summary }))));
    const [header, , actionSft, actObs] = table.split('\n');
    expect(header).toContain(
      '| arg entropy at T=1 (nats) | at matched temperature: T, arg entropy, success % (mean ± std) |',
    );
    // ActionSFT: matched T mean 1.6, matched entropy = the ActObs targets' mean 1.1, success 20 %
    expect(actionSft).toMatch(/^\| 0 \| 3 \| 40\.0 ± 0\.0 \|.*\| 0\.500 \| T 1\.600, 1\.100, 20\.0 ± 0\.0 \|$/);
    expect(actObs).toMatch(/^\| 1 \| 3 \| 60\.0 ± 0\.0 \|.*\| 1\.100 \| – \|$/);
  });

  it('validates matchTemperature against the axes, naming what is wrong', () => {
    const bad = (m: unknown): string => {
      try {
        parseSweepSpec({ seeds: [0], axes: { 'sft.lambdaObs': [0, 1] }, matchTemperature: m }, DEFAULT_CONFIG);
      } catch (e) {
        if (e instanceof ConfigError) return e.message;
        throw e;
      }
      throw new Error('expected a ConfigError');
    };
    expect(bad({ axis: 'sft.lambdaObsx', reference: 1, matched: 0 })).toContain(
      'sweep.matchTemperature.axis: "sft.lambdaObsx" is not an axis of this sweep (axes: sft.lambdaObs)',
    );
    expect(bad({ axis: 'sft.lambdaObs', reference: 2, matched: 0 })).toContain(
      'sweep.matchTemperature.reference: 2 is not a value of axis sft.lambdaObs (values: 0, 1)',
    );
    expect(bad({ axis: 'sft.lambdaObs', reference: 1, matched: 1 })).toContain('reference and matched must differ');
    expect(bad({ axis: 'sft.lambdaObs', reference: 1, matched: 0, extra: true })).toContain(
      'sweep.matchTemperature: unknown key(s) extra (valid keys: axis, reference, matched)',
    );
  });

  it('the actobs-vs-actionsft preset matches ActionSFT (λ_obs = 0) to ActObs (λ_obs = 1)', () => {
    const p = loadPreset('actobs-vs-actionsft', lookup);
    expect(p.sweep?.matchTemperature).toEqual({ axis: 'sft.lambdaObs', reference: 1, matched: 0 });
  });
});

describe('the outcome table and figure of a sweep', () => {
  const base = fixtureSummary('completed');
  const at = (success: number, sT: number | null, trigger: number | null): RunSummary => ({
    ...base,
    teacherPerformance: sT,
    gate: { ...base.gate, triggerStep: trigger },
    test: { ...base.test, successRate: success },
  });

  it('gives the 95 % interval of the mean with Student t (hand-computed), 0 for one seed', () => {
    // success 0.5, 0.6, 0.7: std 0.1, t(2 dof) = 4.303, half-width 4.303 · 0.1 / √3 = 0.24843
    expect(ci95(0.1, 3)).toBeCloseTo(0.24843, 5);
    expect(ci95(0.1, 1)).toBe(0);
    // 12 seeds (11 dof, beyond the 3-decimal table): t_{0.975, 11} = 2.200985 (scipy), not the normal 1.96
    expect(ci95(0.1, 12)).toBeCloseTo(0.063537, 6);
    const rows = compareRuns([0.5, 0.6, 0.7].map((s) => ({ point: { p: 'a' }, summary: at(s, 0.8, null) })));
    expect(rows[0]!.successCi95).toBeCloseTo(0.24843, 5);
    expect(formatComparisonTable(rows)).toContain('| a | 3 | 60.0 ± 24.8 |');
  });

  it('counts the steps to reach 0.9·S_T on the validation curve, and – when never reached', () => {
    const curve = [
      { step: 5, score: 0.5 },
      { step: 10, score: 0.71 },
      { step: 15, score: 0.73 },
    ];
    expect(stepsToTarget(curve, 0.8)).toBe(15); // 0.9 · 0.8 = 0.72
    expect(stepsToTarget(curve, 0.9)).toBeNull();
    expect(stepsToTarget(curve, null)).toBeNull();
    const rows = compareRuns([
      { point: { p: 'a' }, summary: at(0.6, 0.8, 10), curve },
      { point: { p: 'a' }, summary: at(0.6, 0.9, null), curve },
    ]);
    expect(rows[0]!.stepsToTarget).toEqual([15, null]);
    expect(formatComparisonTable(rows)).toContain('| 15, – | 10, – |');
  });

  it('draws one band per series with its mean line and a retirement marker per retired seed', () => {
    const runs = [
      {
        curve: [
          { step: 5, score: 0.2 },
          { step: 10, score: 0.6 },
        ],
        triggerStep: 10,
        teacherPerformance: 0.8,
      },
      {
        curve: [
          { step: 5, score: 0.4 },
          { step: 10, score: 0.8 },
        ],
        triggerStep: null,
        teacherPerformance: 0.8,
      },
    ];
    expect(seriesStats(runs)).toEqual([
      { step: 5, mean: expect.closeTo(0.3, 9), half: expect.closeTo(ci95(Math.SQRT2 / 10, 2), 9), n: 2 },
      { step: 10, mean: expect.closeTo(0.7, 9), half: expect.closeTo(ci95(Math.SQRT2 / 10, 2), 9), n: 2 },
    ]);
    const svg = validationPlotSvg('shell', [{ label: 'adaptive', runs }]);
    expect(svg.match(/<polygon /g)).toHaveLength(1);
    expect(svg.match(/<polyline /g)).toHaveLength(1);
    expect(svg.match(/<path d="M/g)).toHaveLength(1); // one retired seed
    expect(svg).toContain('adaptive (2 seeds, 1 retired)');
    expect(svg).toContain('0.9·S_T');
  });
});

describe('the size of a sweep', () => {
  it('refuses more than 1000 runs, naming the count and its factors, before resolving any axis value', () => {
    const values = Array.from({ length: 3000 }, (_, i) => 0.001 + i * 1e-6);
    // values no config accepts: a refusal that resolved them first would name them instead of the count
    const invalid = Array.from({ length: 3000 }, () => -1);
    for (const v of [values, invalid])
      expect(() => parseSweepSpec({ seeds: [0, 1, 2], axes: { 'student.lambdaOpd': v } }, DEFAULT_CONFIG)).toThrow(
        'sweep: 9000 runs (3 seeds × 3000 values of student.lambdaOpd), at most 1000 in one sweep (split it into several)',
      );
    expect(sweepSizeRefusal([0], { a: Array(10), b: Array(100) })).toBeNull();
    expect(sweepSizeRefusal([0], { a: Array(10), b: Array(101) })).toBe(
      '1010 runs (1 seed × 10 values of a × 101 values of b), at most 1000 in one sweep (split it into several)',
    );
  });
});

describe('expanding a sweep', () => {
  it('gives each run the config that resolving its axis values one by one, then its seed, gives', () => {
    const axes = {
      'student.schedule': ['adaptive', 'never'],
      'student.lambdaOpd': [0.2, 0.7],
      'sft.steps': [3],
    };
    const spec = parseSweepSpec({ seeds: [4, 0], axes }, DEFAULT_CONFIG);
    const runs = expandSweep(DEFAULT_CONFIG, spec);
    const tree = (k: string, v: unknown) =>
      k
        .split('.')
        .reverse()
        .reduce<unknown>((acc, part) => ({ [part]: acc }), v);
    const expected = (point: Record<string, unknown>, seed: number) =>
      resolveConfig(
        { seed },
        Object.entries(point).reduce((c, [k, v]) => resolveConfig(tree(k, v), c), DEFAULT_CONFIG),
      );
    expect(runs.map((r) => r.label)).toEqual([
      'student.schedule=adaptive student.lambdaOpd=0.2 sft.steps=3 seed=4',
      'student.schedule=adaptive student.lambdaOpd=0.2 sft.steps=3 seed=0',
      'student.schedule=adaptive student.lambdaOpd=0.7 sft.steps=3 seed=4',
      'student.schedule=adaptive student.lambdaOpd=0.7 sft.steps=3 seed=0',
      'student.schedule=never student.lambdaOpd=0.2 sft.steps=3 seed=4',
      'student.schedule=never student.lambdaOpd=0.2 sft.steps=3 seed=0',
      'student.schedule=never student.lambdaOpd=0.7 sft.steps=3 seed=4',
      'student.schedule=never student.lambdaOpd=0.7 sft.steps=3 seed=0',
    ]);
    for (const r of runs) expect(r.config, r.label).toEqual(expected(r.point, r.seed));
    // the runs of one point share no object: changing one run's config leaves its sibling's as it was
    runs[0]!.config.student.steps = 999;
    expect(runs[1]!.config.student.steps).toBe(DEFAULT_CONFIG.student.steps);
  });

  it('refuses a seed beyond the 32-bit range in the spec itself', () => {
    expect(() => parseSweepSpec({ seeds: [4294967296], axes: {} }, DEFAULT_CONFIG)).toThrow('sweep.seeds.0');
  });
});
