import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { combinedTitle, report } from '../../cli/sweepOutcome';
import type { RunSummary } from '../../src/core/experiment/summary';

const tmp = mkdtempSync(join(tmpdir(), 'retirelab-sweep-outcome-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** a finished run: only the fields the comparison reads are meaningful */
function summary(name: string, seed: number, success: number, trigger: number | null): RunSummary {
  return {
    name,
    seed,
    env: 'shop',
    schedule: name.startsWith('retire') ? 'adaptive' : 'never',
    estimator: 'full',
    lambdaObs: 0,
    status: 'completed',
    error: null,
    sft: null,
    teacherPerformance: 0.8,
    gate: {
      retired: trigger !== null,
      triggerStep: trigger,
      teacherForwardRun: 10,
      teacherForwardSkipped: 0,
      tokensAtRetirement: null,
      envStepsAtRetirement: null,
    },
    validation: { best: success, last: success },
    test: {
      successRate: success,
      rewardMean: success,
      passAtK: {},
      entropyByClass: { actionHead: 0, actionArg: 0 },
      klFromInit: 0,
    },
    temperatureControl: [],
    probeEntropy: null,
    matchedTemperature: null,
    stepMs: { beforeRetirement: null, afterRetirement: null },
    wallSeconds: 1,
    backend: 'cpu',
  };
}

/** an unfinished sweep folder (no comparison.json): run folders with summary.json and config.json */
function sweepFolder(name: string, runs: RunSummary[]): string {
  const dir = join(tmp, name);
  for (const s of runs) {
    const run = join(dir, `preset-${s.name}_seed-${s.seed}`);
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'summary.json'), JSON.stringify(s));
    writeFileSync(join(run, 'config.json'), JSON.stringify({ env: { name: 'shop', seed: 1 } }));
  }
  return dir;
}

describe('sweep --report', () => {
  it('lists each preset’s per-seed columns in seed order, whatever order the folders came in', () => {
    // seeds 1–2 in the first folder, seed 0 in the second (the order the runs finished in)
    const a = sweepFolder('seeds12', [summary('retire-shop', 1, 0.5, 115), summary('retire-shop', 2, 0.6, 120)]);
    const b = sweepFolder('seed0', [summary('retire-shop', 0, 0.7, 30)]);
    const table = report([a, b], join(tmp, 'combined'));
    expect(table).toContain('| retire-shop | 3 |');
    expect(table).toMatch(/\| 30, 115, 120 \|/);
    expect(readFileSync(join(tmp, 'combined', 'comparison.md'), 'utf8')).toMatch(/^# Sweep retire-shop\n/);
  });

  it('names each preset once in the title of a combined outcome', () => {
    expect(combinedTitle(['retire-shop+opd-shop', 'grpo-shop', 'retire-shop', 'opd-shop'])).toBe(
      'retire-shop+opd-shop+grpo-shop',
    );
  });
});
