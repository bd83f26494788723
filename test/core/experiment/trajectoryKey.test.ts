// The trajectory key decides which runs of a sweep may ride along another's student stage: equal keys must mean
// that every student step computes the same thing whenever the two schedules plan it alike. So only the schedule,
// its gate, the name and the final evaluation may differ; every other key — the student's GRPO, λ_opd, the
// estimator, the budget, the validation cadence and the whole prefix — splits the key.
import { describe, expect, it } from 'vitest';
import { resolveConfig, type ExperimentConfig } from '../../../src/core/experiment/config';
import { CONFIG_KEY_STAGES } from '../../../src/core/experiment/configPrefix';
import { DEFAULT_CONFIG } from '../../../src/core/experiment/configSchema';
import { loadPreset } from '../../../src/core/experiment/preset';
import { isTrajectoryFreeKey, teacherHorizonRank, trajectoryKeyOf } from '../../../src/core/experiment/trajectoryKey';
import { lookupPreset } from '../../support/presets';

const cfg = (tree: unknown): ExperimentConfig => resolveConfig(tree, DEFAULT_CONFIG);
const preset = (name: string): ExperimentConfig => loadPreset(name, lookupPreset).config;

describe('the trajectory key', () => {
  it('lets exactly the name, the schedule, its gate and the final evaluation differ', () => {
    const free = Object.keys(CONFIG_KEY_STAGES).filter(isTrajectoryFreeKey).sort();
    expect(free).toEqual([
      'evaluation.matchArgEntropy',
      'evaluation.passK',
      'evaluation.passN',
      'evaluation.probeTasks',
      'evaluation.temperatures',
      'evaluation.testTasks',
      'name',
      'student.gate.alignmentThreshold',
      'student.gate.competenceThreshold',
      'student.gate.denominatorEpsilon',
      'student.gate.windowSize',
      'student.schedule',
    ]);
  });

  it('is shared by the lesson’s RetireOPD and OPD throughout, and by the gate’s ablations of each environment', () => {
    for (const env of ['shell', 'house', 'shop']) {
      const key = trajectoryKeyOf(preset(`retire-${env}`));
      expect(trajectoryKeyOf(preset(`opd-${env}`)), env).toBe(key);
      for (const schedule of ['competence-only', 'alignment-only', 'fixed:150'])
        expect(trajectoryKeyOf(resolveConfig({ student: { schedule } }, preset(`retire-${env}`))), schedule).toBe(key);
    }
  });

  it('differs for pure GRPO (no teacher stage), the negative control (its facts) and another λ_opd', () => {
    const key = trajectoryKeyOf(preset('retire-shell'));
    expect(trajectoryKeyOf(preset('grpo-shell'))).not.toBe(key);
    expect(trajectoryKeyOf(preset('control-shell'))).not.toBe(key);
    expect(trajectoryKeyOf(resolveConfig({ student: { lambdaOpd: 0.1 } }, preset('retire-shell')))).not.toBe(key);
  });

  it('differs on every student-stage key that is not free: the student’s GRPO, estimator, budget, validation', () => {
    const base = trajectoryKeyOf(DEFAULT_CONFIG);
    for (const tree of [
      { student: { grpo: { learningRate: 0.123 } } },
      { student: { estimator: DEFAULT_CONFIG.student.estimator === 'k3' ? 'full' : 'k3' } },
      { student: { steps: 7 } },
      { student: { validationEvery: 3 } },
      { seed: 12345 },
    ])
      expect(trajectoryKeyOf(cfg(tree)), JSON.stringify(tree)).not.toBe(base);
    expect(trajectoryKeyOf(cfg({ evaluation: { testTasks: 5 }, student: { gate: { windowSize: 3 } } }))).toBe(base);
  });
});

describe('the teacher horizon rank (which run of a trajectory key leads)', () => {
  it('ranks OPD throughout above the gated schedules, those above the step schedules, and GRPO last', () => {
    const rank = (schedule: string): number => teacherHorizonRank(cfg({ student: { schedule } }));
    expect(rank('never')).toBe(3);
    for (const gated of ['adaptive', 'alignment-only', 'competence-only']) expect(rank(gated)).toBe(2);
    for (const step of ['fixed:40', 'linear:100']) expect(rank(step)).toBe(1);
    expect(rank('none')).toBe(0);
    expect(teacherHorizonRank(preset('opd-shell'))).toBeGreaterThan(teacherHorizonRank(preset('retire-shell')));
  });
});
