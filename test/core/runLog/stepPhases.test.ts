import { describe, expect, it } from 'vitest';
import { meanPhaseSeconds, phaseMetrics } from '../../../src/core/runLog/stepPhases';

describe('phaseMetrics', () => {
  it('writes every phase in seconds and throughput over the whole step', () => {
    const m = phaseMetrics(
      { rollout: 300, teacherForward: 50, update: 400, validation: 0, checkpoint: 250 },
      1250,
      500,
    );
    expect(m).toEqual({
      'time/rollout_s': 0.3,
      'time/teacher_forward_s': 0.05,
      'time/update_s': 0.4,
      'time/validation_s': 0,
      'time/checkpoint_s': 0.25,
      'time/tokens_per_s': 400, // 500 tokens / 1.25 s
      'time/steps_per_s': 0.8,
    });
  });
  it('reports zero throughput for a step of no measurable time', () => {
    const m = phaseMetrics({ rollout: 0, teacherForward: 0, update: 0, validation: 0, checkpoint: 0 }, 0, 10);
    expect(m['time/tokens_per_s']).toBe(0);
    expect(m['time/steps_per_s']).toBe(0);
  });
});

describe('meanPhaseSeconds', () => {
  it('averages each phase over the lines that carry phase timings', () => {
    const lines = [
      { step: 1, 'time/rollout_s': 1, 'time/update_s': 2, 'time/teacher_forward_s': 0.5 },
      { step: 2, 'time/rollout_s': 3, 'time/update_s': 4, 'time/validation_s': 2 },
      { step: 3, 'actor/loss': 1 }, // an older log line without phase timings: ignored
    ];
    expect(meanPhaseSeconds(lines)).toEqual({
      rollout: 2,
      teacherForward: 0.25,
      update: 3,
      validation: 1,
      checkpoint: 0,
    });
  });
  it('is null for a log without phase timings', () => {
    expect(meanPhaseSeconds([{ step: 1 }])).toBeNull();
  });
});
