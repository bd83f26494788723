import { describe, expect, it } from 'vitest';
import { alignmentDecision, alignmentHold } from '../../src/core/alignmentHold';
import type { EvaluationLine } from '../../src/core/replay/replayResult';
import { METRIC } from '../../src/core/runLog/metricKeys';

/** A student log as metrics.jsonl holds it: gap g every step, validation score every second step. */
function log(gaps: readonly number[], vals: Readonly<Record<number, number>>): string {
  return gaps
    .map((g, i) => {
      const step = i + 1;
      const line: Record<string, number> = { step, [METRIC.opdTeacherStudentGapMean]: g };
      if (vals[step] !== undefined) line[METRIC.valSuccessRate] = vals[step];
      return JSON.stringify(line);
    })
    .join('\n');
}

// W = 2, S_T = 1, δ = 0, γ = 0.5. K = −g per window: 1, 0.5, 0.25, 0.25, so ρ = (prev − cur)/prev is
// 0.5 at step 4, 0.5 at step 6 and 0 at step 8 (window 1 at step 2 has no previous window).
const GAPS = [-1, -1, -0.5, -0.5, -0.25, -0.25, -0.25, -0.25];
const OPTIONS = {
  gate: { teacher_performance: 1, window_size: 2, alignment_threshold: 0, competence_threshold: 0.5 },
};

describe('alignmentDecision', () => {
  it('counts the competent windows the still-shrinking gap kept, and sees the adaptive trigger come later', () => {
    // η = (S + S_prev)/2 = 0.6 at every valid window: competent from step 4, aligned only at step 8
    const text = log(GAPS, { 2: 0.6, 4: 0.6, 6: 0.6, 8: 0.6 });
    const d = alignmentDecision([{ name: 'metrics.jsonl', text }], OPTIONS);
    expect(d).toEqual({
      windows: 4,
      keptByAlignment: 2,
      keptSteps: [4, 6],
      adaptiveTrigger: 8,
      competenceOnlyTrigger: 4,
      triggerDiffers: true,
    });
  });

  it('finds no window held by alignment when competence arrives last, and the same trigger either way', () => {
    // η = 0.3, 0.3, then (0.8 + 0.3)/2 = 0.55 at step 8, where ρ = 0 as well
    const text = log(GAPS, { 2: 0.3, 4: 0.3, 6: 0.3, 8: 0.8 });
    const d = alignmentDecision([{ name: 'metrics.jsonl', text }], OPTIONS);
    expect(d.keptByAlignment).toBe(0);
    expect(d.adaptiveTrigger).toBe(8);
    expect(d.competenceOnlyTrigger).toBe(8);
    expect(d.triggerDiffers).toBe(false);
  });
});

describe('alignmentHold', () => {
  const line = (step: number, rho: number | null, eta: number | null, retired = false): EvaluationLine => ({
    type: 'evaluation',
    step,
    window_index: step,
    k_window_mean: 1,
    alignment_progress: rho,
    competence_ratio: eta,
    criterion_valid: rho !== null,
    retired,
    window_end_step: step,
    student_performance: 0.5,
  });

  it('stops counting at the window that retired and skips invalid windows', () => {
    const h = alignmentHold(
      [line(1, null, null), line(2, 0.1, 0.95), line(3, 0.2, 0.8), line(4, -0.1, 0.95, true), line(5, 0.3, 0.99)],
      { alignment_threshold: 0, competence_threshold: 0.9 },
    );
    expect(h).toEqual({ windows: 4, keptByAlignment: 1, keptSteps: [2] });
  });

  it('treats η exactly at γ as competent and ρ exactly at δ as aligned (the gate’s ≥ and ≤)', () => {
    const h = alignmentHold([line(1, 0, 0.9), line(2, 1e-9, 0.9)], {
      alignment_threshold: 0,
      competence_threshold: 0.9,
    });
    expect(h.keptSteps).toEqual([2]);
  });
});
