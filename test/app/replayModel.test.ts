import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SETTINGS,
  replaySeries,
  runReplay,
  settingsToOptions,
  thresholds,
  type ReplaySettings,
} from '../../src/app/replay/replayModel';
import { ROOT } from './appServer';

const fixture = (name: string) => ({ name, text: readFileSync(join(ROOT, 'test/fixtures/replay', name), 'utf8') });
const settings = (over: Partial<ReplaySettings>): ReplaySettings => ({ ...DEFAULT_SETTINGS, ...over });

describe('the replay view’s model', () => {
  it('has the CLI’s defaults and passes only what the user set', () => {
    expect(DEFAULT_SETTINGS).toMatchObject({
      windowSize: '5',
      alignmentThreshold: '0',
      competenceThreshold: '0.9',
      denominatorEpsilon: '1e-8',
      schedule: 'adaptive',
      format: 'auto',
    });
    expect(settingsToOptions(settings({ teacherPerformance: '0.8', windowSize: '', denominatorEpsilon: '' }))).toEqual({
      gate: { teacherPerformance: 0.8, alignmentThreshold: 0, competenceThreshold: 0.9 },
      schedule: 'adaptive',
    });
    expect(
      settingsToOptions(
        settings({
          teacherPerformance: ' 0.75 ',
          alignmentThreshold: '-0.05',
          gapKey: ' kl ',
          format: 'csv',
          schedule: 'alignment-only',
        }),
      ),
    ).toEqual({
      gate: {
        teacherPerformance: 0.75,
        windowSize: 5,
        alignmentThreshold: -0.05,
        competenceThreshold: 0.9,
        denominatorEpsilon: 1e-8,
      },
      schedule: 'alignment-only',
      format: 'csv',
      gapKey: 'kl',
    });
  });

  it('replays a fixture to the trigger step its README states (simple.jsonl, S_T 0.7, W 3 → 21)', () => {
    const out = runReplay([fixture('simple.jsonl')], settings({ teacherPerformance: '0.7', windowSize: '3' }));
    if (!out.ok) throw new Error(out.failure.message);
    expect(out.result.summary.trigger_step).toBe(21);
    expect(out.result.summary.retired).toBe(true);
  });

  it('names the setting at fault, in the page’s words', () => {
    const fail = (over: Partial<ReplaySettings>) => {
      const out = runReplay([fixture('simple.jsonl')], settings(over));
      if (out.ok) throw new Error('expected a failure');
      return out.failure;
    };
    expect(fail({ teacherPerformance: '' })).toEqual({
      kind: 'setting',
      setting: 'teacherPerformance',
      message: "S_T (teacher performance) is required (the teacher's validation score, > 0)",
    });
    expect(fail({ teacherPerformance: 'abc' })).toMatchObject({
      setting: 'teacherPerformance',
      message: 'S_T (teacher performance): expected a number, got "abc"',
    });
    expect(fail({ teacherPerformance: '0.7', windowSize: '2.5' })).toEqual({
      kind: 'setting',
      setting: 'windowSize',
      message: 'W (window) must be a positive integer (got 2.5)',
    });
    expect(fail({ teacherPerformance: '0.7', gapKey: 'kl' })).toMatchObject({
      kind: 'input',
      file: 'simple.jsonl',
      line: 1,
    });
    expect(fail({ teacherPerformance: '0.7', gapKey: 'kl' }).message).toMatch(
      /^simple\.jsonl:1: the gap key field "kl" is not a key of this log/,
    );
  });

  it('reports bad input as FILE:LINE: what is wrong', () => {
    const out = runReplay(
      [{ name: 'bad.jsonl', text: '{"step":1,"gap":-0.2,"val":0.1}\n{"step":2,"gap":"x"}\n' }],
      settings({ teacherPerformance: '0.5' }),
    );
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.failure).toMatchObject({ kind: 'input', file: 'bad.jsonl', line: 2 });
      expect(out.failure.message).toBe('bad.jsonl:2: step 2: gap "gap" is not a number: "x"');
    }
  });

  it('draws only finite gate values: the first window has no ρ or η', () => {
    const out = runReplay([fixture('verl_retire_opd.jsonl')], settings({ teacherPerformance: '0.8' }));
    if (!out.ok) throw new Error(out.failure.message);
    const s = replaySeries(out.result);
    const n = out.result.evaluations.length;
    expect(s.windowMean).toHaveLength(n);
    expect(s.alignment).toHaveLength(n - 1);
    expect(s.competence).toHaveLength(n - 1);
    expect(s.alignment[0]?.x).toBe(out.result.evaluations[1]?.step);
    expect(s.competence.at(-1)).toEqual({ x: 35, y: out.result.evaluations.at(-1)?.competence_ratio });
  });

  it('draws K̄ₘ at the step that closed its window, not at the validation that read it', () => {
    // W 5, a gap every step, a validation every 10: the validation at step 10n reads window n, which closed at 5n
    const text = Array.from({ length: 40 }, (_, i) => {
      const step = i + 1;
      return JSON.stringify(step % 10 === 0 ? { step, gap: -1 / step, val: 0.1 } : { step, gap: -1 / step });
    }).join('\n');
    const out = runReplay([{ name: 'w5.jsonl', text }], settings({ teacherPerformance: '1', windowSize: '5' }));
    if (!out.ok) throw new Error(out.failure.message);
    const s = replaySeries(out.result);
    expect(s.windowMean.map((p) => p.x)).toEqual([5, 10, 15, 20]);
    // K̄₁ = mean(1, 1/2, 1/3, 1/4, 1/5) = 137/300
    expect(s.windowMean[0]?.y).toBeCloseTo(137 / 300, 12);
    expect(s.alignment.map((p) => p.x)).toEqual([20, 30, 40]);
  });

  it('reads the δ and γ lines from the settings, defaults when empty', () => {
    expect(thresholds(settings({ alignmentThreshold: '0.05', competenceThreshold: '' }))).toEqual({
      delta: 0.05,
      gamma: 0.9,
    });
  });
});
