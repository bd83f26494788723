import { describe, expect, it } from 'vitest';
import { replayGate } from '../../src/core/replay/gateReplay';
import { DEFAULT_CONFIG } from '../../src/core/experiment/config';
import { metricsJsonl, replaySettingsFor } from '../../src/app/train/runExport';
import { settingsToOptions } from '../../src/app/replay/replayModel';

describe('a run’s log for the gate replay', () => {
  it('writes one JSON object per step with non-finite numbers as null, as the CLI’s metrics.jsonl', () => {
    const text = metricsJsonl([
      { step: 1, 'opd/teacher_student_gap_mean': -0.5, 'retire_opd/k_window_mean': Number.NaN },
      { step: 2, 'opd/teacher_student_gap_mean': -0.4, 'actor/entropy': Infinity },
    ]);
    expect(text).toBe(
      '{"step":1,"opd/teacher_student_gap_mean":-0.5,"retire_opd/k_window_mean":null}\n' +
        '{"step":2,"opd/teacher_student_gap_mean":-0.4,"actor/entropy":null}\n',
    );
    expect(metricsJsonl([])).toBe('');
  });

  it('replays with the run’s own S_T and gate settings, and is replayable by the core', () => {
    const cfg = {
      ...DEFAULT_CONFIG,
      student: {
        ...DEFAULT_CONFIG.student,
        gate: { windowSize: 2, alignmentThreshold: 0.5, competenceThreshold: 0.1, denominatorEpsilon: 1e-6 },
      },
    };
    const settings = replaySettingsFor(cfg, 0.0625);
    expect(settings).toMatchObject({
      teacherPerformance: '0.0625',
      windowSize: '2',
      alignmentThreshold: '0.5',
      competenceThreshold: '0.1',
      denominatorEpsilon: '0.000001',
      schedule: 'adaptive',
    });
    // K = 0.5, 0.5 | 0.4, 0.4 | 0.4, 0.4 with validation every 2 steps: the first evaluation (step 2) has no ρ;
    // at step 4: ρ = (0.5 − 0.4)/0.5 = 0.2 ≤ δ = 0.5 and η = (0.05 + 0.05)/(2·0.0625) = 0.8 ≥ γ = 0.1 → retires at 4
    const lines = [1, 2, 3, 4, 5, 6].map((step) => ({
      step,
      'opd/teacher_student_gap_mean': step <= 2 ? -0.5 : -0.4,
      ...(step % 2 === 0 ? { 'val/success_rate': 0.05 } : {}),
    }));
    const result = replayGate([{ name: 'run.jsonl', text: metricsJsonl(lines) }], settingsToOptions(settings!));
    expect(result.summary.trigger_step).toBe(4);
  });

  it('has no replay for schedules that do not read the log', () => {
    for (const schedule of ['never', 'none', 'fixed:40', 'linear:80']) {
      expect(
        replaySettingsFor({ ...DEFAULT_CONFIG, student: { ...DEFAULT_CONFIG.student, schedule } }, 0.5),
      ).toBeNull();
    }
    expect(replaySettingsFor(DEFAULT_CONFIG, null)).toBeNull();
  });
});
