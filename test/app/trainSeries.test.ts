import { describe, expect, it } from 'vitest';
import { INITIAL_RUN_STATE, type RunState } from '../../src/app/train/liveRunState';
import { trainSeries } from '../../src/app/train/trainSeries';
import { evaluation } from './runFixtures';

describe('the Train view’s chart series', () => {
  it('takes gate quantities from the events and the rest from the metrics lines, skipping missing values', () => {
    const state: RunState = {
      ...INITIAL_RUN_STATE,
      steps: {
        sft: [
          { step: 1, 'sft/loss': 2 },
          { step: 4, 'sft/loss': 1.5, 'sft/grad_cosine': -0.25 },
        ],
        teacher: [{ step: 1, 'rollout/success_rate': 0.9, 'actor/entropy': 2 }],
        student: [
          { step: 1, 'rollout/success_rate': 0.25, 'actor/entropy': 1.5 },
          { step: 5, 'rollout/success_rate': 0.5, 'actor/entropy': Number.NaN, 'val/success_rate': 0.375 },
        ],
      },
      windows: [
        { step: 5, mean: 0.3 },
        { step: 10, mean: 0.2 },
      ],
      evaluations: [evaluation(5, Number.NaN, Number.NaN), evaluation(10, 0.25, 0.8)],
    };
    const s = trainSeries(state);
    expect(s.windowMean).toEqual([
      { x: 5, y: 0.3 },
      { x: 10, y: 0.2 },
    ]);
    expect(s.alignment).toEqual([{ x: 10, y: 0.25 }]);
    expect(s.competence).toEqual([{ x: 10, y: 0.8 }]);
    expect(s.rolloutSuccess).toEqual([
      { x: 1, y: 0.25 },
      { x: 5, y: 0.5 },
    ]);
    expect(s.validationSuccess).toEqual([{ x: 5, y: 0.375 }]);
    expect(s.entropy).toEqual([{ x: 1, y: 1.5 }]);
    expect(s.gradientCosine).toEqual([{ x: 4, y: -0.25 }]);
  });
});
