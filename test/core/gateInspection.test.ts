// The gate inspector's rows: hand-computed words for a small log, the same rows from a live gate's events and from a
// replay of the same values, and — for every replay fixture — one row per evaluation line of the CLI replay with the
// same step, window, P, C and retiring row. The what-if's trigger steps are checked against the fixtures' documented
// CLI results (test/fixtures/replay/README.md) and against the replay run directly.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectGate, formatGateNumber } from '../../src/core/gateInspection';
import { compareOutcomes, gateOutcome, sensitivityGrid } from '../../src/core/gateWhatIf';
import { parseGateConfig } from '../../src/core/gateConfig';
import { RetirementGate } from '../../src/core/retirementGate';
import { replayGate, replayLines, type ReplayOptions } from '../../src/core/replay/gateReplay';
import type { LogSource } from '../../src/core/replay/logRecords';

const FIXTURES = join(__dirname, '../fixtures/replay');
const source = (file: string): LogSource => ({ name: file, text: readFileSync(join(FIXTURES, file), 'utf8') });
const jsonl = (rows: object[]): LogSource => ({
  name: 'hand.jsonl',
  text: rows.map((r) => JSON.stringify(r)).join('\n'),
});

// W = 2, S_T = 0.8, δ = 0, γ = 0.9. K = −g. Windows: K̄₁ = 0.4 (@2), K̄₂ = 0.3 (@4), K̄₃ = 0.31 (@6).
// @2: first window → not evaluable. @4: ρ = (0.4 − 0.3)/0.4 = 0.25, η = (0.7 + 0.5)/1.6 = 0.75 → keep.
// @6: ρ = (0.3 − 0.31)/0.3 = −0.0333, η = (0.9 + 0.7)/1.6 = 1 → retire.
const HAND = [
  { step: 1, gap: -0.4 },
  { step: 2, gap: -0.4, val: 0.5 },
  { step: 3, gap: -0.3 },
  { step: 4, gap: -0.3, val: 0.7 },
  { step: 5, gap: -0.31 },
  { step: 6, gap: -0.31, val: 0.9 },
];
const HAND_GATE = { teacherPerformance: 0.8, windowSize: 2 };

describe('inspectGate', () => {
  it('says in words why each hand-computed window kept or retired the teacher', () => {
    const { evaluations } = replayGate([jsonl(HAND)], { gate: HAND_GATE });
    const rows = inspectGate(evaluations, parseGateConfig({ lambdaOpd: 1, ...HAND_GATE }));
    expect(rows.map((r) => [r.windowIndex, r.step, r.decision])).toEqual([
      [1, 2, 'keep'],
      [2, 4, 'keep'],
      [3, 6, 'retire'],
    ]);
    expect(rows[0]?.invalidReason).toBe('no-previous-window');
    expect(rows[0]?.reason).toBe('not evaluable: no previous window yet (ρ and η compare two evaluated windows)');
    expect(rows[1]?.previousKWindowMean).toBeCloseTo(0.4, 12);
    expect(rows[1]?.previousPerformance).toBe(0.5);
    expect(rows[1]?.alignmentProgress).toBeCloseTo(0.25, 12);
    expect(rows[1]?.competenceRatio).toBeCloseTo(0.75, 12);
    expect(rows[1]?.reason).toBe(
      'keep: gap still shrinking: ρ = 0.25 > δ = 0; student not yet competent: η = 0.75 < γ = 0.9',
    );
    expect(rows[2]?.alignmentProgress).toBeCloseTo(-1 / 30, 12);
    expect(rows[2]?.reason).toBe(
      'retire: gap stopped shrinking: ρ = -0.0333 ≤ δ = 0 and student competent: η = 1 ≥ γ = 0.9',
    );
  });

  it('names only the condition an ablation rule checks', () => {
    const { evaluations } = replayGate([jsonl(HAND)], { gate: HAND_GATE, schedule: 'competence-only' });
    const rows = inspectGate(evaluations, parseGateConfig({ lambdaOpd: 1, ...HAND_GATE }), 'competence-only');
    expect(rows[1]?.reason).toBe('keep: student not yet competent: η = 0.75 < γ = 0.9');
  });

  it('gives the same rows for a live gate’s events as for the replay of the same values', () => {
    const config = parseGateConfig({ lambdaOpd: 1, ...HAND_GATE });
    const gate = new RetirementGate(config);
    const live = [];
    for (const r of HAND) {
      gate.beginStep(r.step);
      gate.observeGap(r.step, r.gap);
      if (r.val !== undefined) {
        const e = gate.validate(r.step, r.val);
        if (e) live.push(e);
      }
    }
    const replayed = replayGate([jsonl(HAND)], { gate: HAND_GATE }).evaluations;
    expect(inspectGate(live, config)).toEqual(inspectGate(replayed, config));
  });

  it('explains an evaluation whose previous window mean is within ε of zero', () => {
    const rows = [
      { step: 1, gap: 0 },
      { step: 2, gap: 0, val: 0.5 },
      { step: 3, gap: -0.2 },
      { step: 4, gap: -0.2, val: 0.9 },
    ];
    const { evaluations } = replayGate([jsonl(rows)], { gate: HAND_GATE });
    const inspected = inspectGate(evaluations, parseGateConfig({ lambdaOpd: 1, ...HAND_GATE }));
    expect(inspected[1]?.valid).toBe(false);
    expect(inspected[1]?.invalidReason).toBe('previous-near-zero');
    expect(inspected[1]?.reason).toBe('not evaluable: |previous K̄| = 0 ≤ ε = 1.00e-8');
  });

  it('refuses evaluations that are not one gate’s consecutive windows', () => {
    const { evaluations } = replayGate([jsonl(HAND)], { gate: HAND_GATE });
    const config = parseGateConfig({ lambdaOpd: 1, ...HAND_GATE });
    expect(() => inspectGate(evaluations.slice(1), config)).toThrow(/evaluation 1 has window_index 2/);
  });

  it('formats numbers with three significant digits, exponents when tiny', () => {
    expect([formatGateNumber(0.21), formatGateNumber(-1 / 30), formatGateNumber(1e-8), formatGateNumber(null)]).toEqual(
      ['0.21', '-0.0333', '1.00e-8', '—'],
    );
  });
});

/** The fixtures' documented CLI commands and trigger steps (test/fixtures/replay/README.md). */
const FIXTURE_CASES: { files: string[]; options: ReplayOptions; trigger: number | null }[] = [
  { files: ['verl_retire_opd.jsonl'], options: { gate: { teacherPerformance: 0.8 } }, trigger: 35 },
  { files: ['trl_trainer_state.json'], options: { gate: { teacherPerformance: 0.9 } }, trigger: null },
  {
    files: ['run-grpo_opd-tag-skillsd_teacher_student_gap_mean.csv', 'run-grpo_opd-tag-val_success_rate.csv'],
    options: { gate: { teacherPerformance: 0.75, windowSize: 4, alignmentThreshold: 0.05 } },
    trigger: 32,
  },
  { files: ['simple.jsonl'], options: { gate: { teacherPerformance: 0.7, windowSize: 3 } }, trigger: 21 },
  { files: ['lab_metrics.jsonl'], options: { gate: { teacherPerformance: 0.6 } }, trigger: 35 },
];

describe('the inspector over the replay fixtures', () => {
  for (const c of FIXTURE_CASES) {
    it(`has one row per CLI evaluation line of ${c.files.join(' + ')}, with its step, P, C and retiring row`, () => {
      const sources = c.files.map(source);
      const result = replayGate(sources, c.options);
      // the CLI's stdout, as `npm run replay` prints it
      const lines = replayLines(result).map((l) => JSON.parse(l) as Record<string, unknown>);
      const evaluationLines = lines.filter((l) => l.type === 'evaluation');
      const summary = lines[lines.length - 1] as { trigger_step: number | null };
      const rows = inspectGate(result.evaluations, parseGateConfig({ lambdaOpd: 1, ...c.options.gate }));
      expect(rows.length).toBe(evaluationLines.length);
      expect(rows.map((r) => r.step)).toEqual(evaluationLines.map((l) => l.step));
      expect(rows.map((r) => r.alignmentProgress)).toEqual(evaluationLines.map((l) => l.alignment_progress));
      expect(rows.map((r) => r.competenceRatio)).toEqual(evaluationLines.map((l) => l.competence_ratio));
      const retiring = rows.filter((r) => r.decision === 'retire').map((r) => r.step);
      expect(retiring).toEqual(c.trigger === null ? [] : [c.trigger]);
      expect(summary.trigger_step).toBe(c.trigger);
    });
  }
});

describe('the what-if', () => {
  it('finds the documented trigger steps and the shift when δ changes', () => {
    const files = FIXTURE_CASES[2]?.files.map(source) ?? [];
    const base: ReplayOptions = { gate: { teacherPerformance: 0.75, windowSize: 4, alignmentThreshold: 0.05 } };
    const original = gateOutcome(files, base);
    expect(original.triggerStep).toBe(32);
    const strict = gateOutcome(files, { gate: { ...base.gate, alignmentThreshold: 0 } });
    expect(strict.triggerStep).toBeNull(); // the fixture README: null with δ = 0
    const cmp = compareOutcomes(original, strict);
    expect(cmp.triggerShift).toBeNull();
    expect(cmp.savedShift).toBe(-original.teacherForwardsSaved);
    expect(original.teacherForwardsSaved).toBe(replayGate(files, base).summary.teacher_forward_steps_saved);
  });

  it('fills the δ × γ grid with the trigger step each setting gives', () => {
    const files = [source('verl_retire_opd.jsonl')];
    const options: ReplayOptions = { gate: { teacherPerformance: 0.8 } };
    const grid = sensitivityGrid(files, options, [0, 0.1], [0.9, 5]);
    expect(grid.triggerSteps[0]?.[0]).toBe(35);
    // γ = 5 asks for η ≥ 5: the student would need five times the teacher's score
    expect(grid.triggerSteps.map((row) => row[1])).toEqual([null, null]);
    const direct = replayGate(files, { gate: { teacherPerformance: 0.8, alignmentThreshold: 0.1 } }).summary;
    expect(grid.triggerSteps[1]?.[0]).toBe(direct.trigger_step);
    expect(grid.retiringCells).toBe(2);
  });
});
