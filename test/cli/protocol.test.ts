// The protocol's report on synthetic protocol folders: run folders written by the CLI's own RunFolder (config.json,
// metrics.jsonl through record(), summary.json and report.md through writeSummary), no training.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SweepOptions } from '../../cli/sweep';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/protocol';
import { readPreset } from '../../cli/presetFiles';
import { RunFolder } from '../../cli/runFolder';
import { slug } from '../../cli/sweepOutcome';
import { applyOverrides, resolveConfig } from '../../src/core/experiment/config';
import type { FactOutcome } from '../../src/core/experiment/factOutcome';
import type { RunSummary } from '../../src/core/experiment/summary';
import { METRIC } from '../../src/core/runLog/metricKeys';

const tmp = mkdtempSync(join(tmpdir(), 'retirelab-protocol-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function io() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t) } };
}

interface Fake {
  preset: string;
  seed: number;
  success: number;
  sets?: string[];
  facts?: FactOutcome[];
  /** validation scores at steps 5, 10, 15, 20 (the student log: W = 5, validation every 5 steps) */
  vals?: readonly number[];
  /** the run's trigger step (default 20; null: never retired) */
  trigger?: number | null;
}

const REPORTING = [1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009];

// K = −gap per window of 5 steps: 1, 0.5, 0.25, 0.25, so ρ = 0.5 at steps 10 and 15 and 0 at step 20
const GAPS = [...Array(5).fill(-1), ...Array(5).fill(-0.5), ...Array(10).fill(-0.25)] as number[];
const S_T = 0.8;

/** One finished run folder in `sweepDir`, named as a sweep names it. */
function fakeRun(sweepDir: string, f: Fake): void {
  const preset = readPreset(f.preset);
  const config = resolveConfig({ seed: f.seed }, applyOverrides(preset.config, f.sets ?? []));
  const folder = RunFolder.create(join(sweepDir, slug(`preset=${f.preset} seed=${f.seed}`)), config);
  GAPS.forEach((gap, i) => {
    const step = i + 1;
    const metrics: { step: number } & Record<string, number> = { step, [METRIC.opdTeacherStudentGapMean]: gap };
    if (f.vals && step % 5 === 0) metrics[METRIC.valSuccessRate] = f.vals[step / 5 - 1] as number;
    folder.record({ type: 'step', stage: 'student', step, totalSteps: 20, metrics });
  });
  const summary: RunSummary = {
    name: f.preset,
    seed: f.seed,
    env: 'shell',
    schedule: config.student.schedule,
    estimator: config.student.estimator,
    lambdaObs: config.sft.lambdaObs,
    status: 'completed',
    error: null,
    sft: null,
    teacherPerformance: S_T,
    gate: {
      retired: f.trigger !== null,
      triggerStep: f.trigger === undefined ? 20 : f.trigger,
      teacherForwardRun: 20,
      teacherForwardSkipped: 0,
      tokensAtRetirement: null,
      envStepsAtRetirement: null,
    },
    validation: { best: f.success, last: f.success },
    test: {
      successRate: f.success,
      rewardMean: f.success,
      passAtK: {},
      entropyByClass: { actionHead: 0, actionArg: 0 },
      klFromInit: 0,
    },
    temperatureControl: [],
    probeEntropy: null,
    matchedTemperature: null,
    ...(f.facts ? { misleadingFacts: f.facts } : {}),
    stepMs: { beforeRetirement: null, afterRetirement: null },
    wallSeconds: 1,
    backend: 'cpu',
  };
  folder.writeSummary(config, summary);
}

const RETIRE = [0.846, 0.81, 0.901, 0.88, 0.864];
const OPD = [0.824, 0.756, 0.837, 0.827, 0.833];
const factsOf = (a: number, b: number): FactOutcome[] => [
  { skill: 'nginx key in etc', tasks: 2, successRate: a },
  { skill: 'cron log in tmp', tasks: 1, successRate: b },
];

/** A protocol folder: RetireOPD and OPD throughout on five seeds, one fixed:N run. */
function protocolFolder(name: string, seeds: readonly number[], facts: boolean): string {
  const dir = join(tmp, name);
  seeds.forEach((seed, i) => {
    // seed i = 0: competent from step 10 while the gap still shrinks; the others competent only at step 20
    const vals = i === 0 ? [0.8, 0.8, 0.8, 0.8] : [0.5, 0.5, 0.5, 1];
    fakeRun(join(dir, 'retire'), {
      preset: 'retire-shell',
      seed,
      success: RETIRE[i]!,
      vals,
      // the hand-computed gate table below assumes these windows and thresholds, whatever the preset's are
      sets: ['student.gate.windowSize=5', 'student.gate.competenceThreshold=0.9', 'student.gate.alignmentThreshold=0'],
      ...(facts ? { facts: factsOf(0.75, 0.25) } : {}),
    });
    fakeRun(join(dir, 'opd'), {
      preset: 'opd-shell',
      seed,
      success: OPD[i]!,
      ...(facts ? { facts: factsOf(0, 0) } : {}),
    });
  });
  fakeRun(join(dir, `fixed-${seeds[0]}`), {
    preset: 'retire-shell',
    seed: seeds[0]!,
    success: 0.8,
    sets: ['student.schedule=fixed:20'],
  });
  return dir;
}

describe('npm run protocol (report)', () => {
  it('reports the story, the paired difference, the ablation, the gate and the per-fact table by seed', async () => {
    const dir = protocolFolder('reporting', [1000, 1001, 1002, 1003, 1004], true);
    const outFile = join(tmp, 'page.md');
    const { out, io: cli } = io();
    const code = await main(['--env', 'shell', '--seeds', 'reporting', '--dir', dir, '--out', outFile], cli);
    expect(out.stderr).toBe('');
    expect(code).toBe(0);
    const page = readFileSync(outFile, 'utf8');
    // mean 86.02 %, half-width t_{0.975,4}·sd/√5 = 4.298 points (scipy reference in seedStatistics.test.ts)
    expect(page).toContain('| RetireOPD (adaptive gate) | 5 | 86.0 ± 4.3 | — | — |');
    // OPD throughout 81.54 ± 4.17 % (scipy); RetireOPD − OPD = +4.48 ± 2.18 points, higher on every seed
    expect(page).toContain('| OPD throughout | 5 | 81.5 ± 4.2 | +4.5 ± 2.2 | 5 of 5 |');
    expect(page).toContain('RetireOPD − OPD throughout: +4.5 ± 2.2 points over 5 seeds; RetireOPD is higher on 5 of 5');
    // fixed:N on one seed: 84.6 − 80.0, no interval from one seed; N = each seed's trigger step
    expect(page).toMatch(
      /\| fixed:N \(N = the seed’s RetireOPD trigger\) \| 1 \| 80\.0 \(one seed\) \| \+4\.6 \| 1 of 1 \| 1000: 20, 1001: 20/,
    );
    // seed 1000: competent from step 10 but the gap still shrank at 10 and 15; competence-only retires at 10
    expect(page).toContain('| 1000 | 20 | 10 | 4 | 2 (10, 15) |');
    expect(page).toContain('| 1001 | 20 | 20 | 4 | 0 |');
    expect(page).toContain('The alignment condition changed the trigger on 1 of 5 RetireOPD runs.');
    // the replay reproduces every run's own trigger (20, as its summary.json says)
    expect(page).not.toContain('Caution');
    expect(page).toContain('| nginx key in etc | 2 | 5 of 5 | 75.0 | 0 of 5 | 0.0 |');
    expect(page).toContain('| cron log in tmp | 1 | 0 of 5 | 25.0 | 0 of 5 | 0.0 |');
    expect(page).toContain('Held-out result: seeds 1000–1009');
    expect(page).toContain(`    npm run protocol -- --env shell --seeds reporting --dir ${dir} --out ${outFile}`);
    expect(page).toMatch(/Commit [0-9a-f]{7,}/);
    // the arms the folder lacks are planned, not run
    expect(out.stdout).toContain(
      `to run: npm run sweep -- --presets grpo-shell --seeds 1000,1001,1002,1003,1004,1005,1006,1007,1008,1009 --out ${dir}/grpo`,
    );
    expect(out.stdout).toContain('--set student.schedule=fixed:20 --out');
  });

  it('refuses a reporting table built from the tuning seeds', async () => {
    const dir = protocolFolder('tuning', [0, 1, 2, 3, 4], true);
    const { out, io: cli } = io();
    const code = await main(['--env', 'shell', '--seeds', 'reporting', '--dir', dir], cli);
    expect(code).toBe(2);
    expect(out.stderr).toMatch(
      /^protocol: .*no reporting protocol table from these runs: seeds 0, 1, 2, 3, 4 are not held out/,
    );
    // the same runs are a tuning table, labelled as such
    const again = io();
    expect(await main(['--env', 'shell', '--seeds', 'tuning', '--dir', dir], again.io)).toBe(0);
    expect(again.out.stdout).toContain('**Tuning seeds** 0–4');
  });

  it('says precisely what is missing when the summaries predate the per-fact recorder', async () => {
    const dir = protocolFolder('old', [1000, 1001, 1002, 1003, 1004], false);
    const { out, io: cli } = io();
    expect(await main(['--env', 'shell', '--seeds', 'reporting', '--dir', dir], cli)).toBe(0);
    expect(out.stdout).toContain('Not available: summary.json of the retire and opd runs has no `misleadingFacts`');
  });

  it('plans every arm of an empty protocol folder and runs nothing', async () => {
    const dir = join(tmp, 'empty');
    const { out, io: cli } = io();
    expect(await main(['--env', 'shell', '--seeds', 'reporting', '--dir', dir], cli)).toBe(0);
    for (const arm of ['retire', 'opd', 'grpo', 'control', 'competence-only', 'alignment-only', 'lambda'])
      expect(out.stdout).toContain(`--out ${dir}/${arm}\n`);
    expect(out.stdout).toContain('--set env.misleadingSkillFraction=0 --out');
    expect(out.stdout).toContain('--vary student.lambdaOpd=0.01,0.1');
    expect(out.stdout).toContain(`no finished runs in ${dir} yet`);
  });

  it('--run runs RetireOPD first, then the other arms, then fixed:N matched to each seed’s trigger', async () => {
    const dir = join(tmp, 'run');
    const calls: { argv: string[]; heldOut: boolean | undefined; riders: string[]; rides: unknown }[] = [];
    // a stand-in for `npm run sweep`: records its arguments and writes finished runs for the RetireOPD arm only
    const fakeSweep = async (argv: string[], _io: unknown, options: SweepOptions): Promise<number> => {
      const riders = (options.riders ?? []).map((r) => r.dir.slice(dir.length + 1));
      calls.push({ argv, heldOut: options.heldOut, riders, rides: options.rides });
      const out = argv[argv.indexOf('--out') + 1]!;
      if (out.endsWith('/retire'))
        REPORTING.forEach((seed, i) =>
          fakeRun(out, { preset: 'retire-shell', seed, success: 0.8, trigger: i % 3 === 0 ? null : 100 + i }),
        );
      else mkdirSync(out, { recursive: true });
      return 0;
    };
    const { out, io: cli } = io();
    const code = await main(
      ['--env', 'shell', '--seeds', 'reporting', '--dir', dir, '--run', '--backend', 'cpu', '--no-progress'],
      cli,
      fakeSweep,
    );
    expect(out.stderr).not.toContain('protocol: internal error');
    expect(code).toBe(0);
    const outs = calls.map((c) => c.argv[c.argv.indexOf('--out') + 1]!.slice(dir.length + 1));
    // seeds 1000, 1003, 1006, 1009 never retired (trigger null): no fixed:N run for them
    expect(outs).toEqual([
      'retire',
      'opd',
      'grpo',
      'control',
      'competence-only',
      'alignment-only',
      'misleading0-retire',
      'misleading0-opd',
      'lambda',
      'fixed-1001',
      'fixed-1002',
      'fixed-1004',
      'fixed-1005',
      'fixed-1007',
      'fixed-1008',
    ]);
    expect(calls[10]!.argv).toEqual([
      '--presets',
      'retire-shell',
      '--seeds',
      '1002',
      '--set',
      'student.schedule=fixed:102',
      '--out',
      `${dir}/fixed-1002`,
      '--backend',
      'cpu',
      '--no-progress',
      '--share-from',
      dir,
    ]);
    expect(calls.every((c) => c.heldOut === true)).toBe(true);
    // the later arms' runs are offered to the RetireOPD arm to ride along it (the trajectory key then picks OPD
    // throughout and the gate's ablations), and every sweep of the protocol shares one registry of rides
    expect(calls[0]!.riders).toEqual(
      expect.arrayContaining([
        'opd/preset-opd-shell_seed-1000',
        'competence-only/preset-retire-shell_seed-1009',
        'alignment-only/preset-retire-shell_seed-1004',
      ]),
    );
    expect(calls[0]!.riders).not.toContain('retire/preset-retire-shell_seed-1000');
    expect(calls.slice(1).every((c) => c.riders.length === 0 && c.rides === calls[0]!.rides)).toBe(true);
    // a second --run finds every arm's folder and runs nothing
    calls.length = 0;
    expect(await main(['--env', 'shell', '--seeds', 'reporting', '--dir', dir, '--run'], io().io, fakeSweep)).toBe(0);
    expect(calls).toEqual([]);
  });

  it('refuses an environment without a story and an unknown seed set', async () => {
    const a = io();
    expect(await main(['--env', 'moon', '--seeds', 'reporting'], a.io)).toBe(2);
    expect(a.out.stderr).toMatch(/--env moon: no preset retire-moon \(environments with a story: house, shell, shop\)/);
    const b = io();
    expect(await main(['--env', 'shell', '--seeds', '0,1'], b.io)).toBe(2);
    expect(b.out.stderr).toMatch(/--seeds: expected reporting or tuning/);
  });
});
