// The trainer's signal guard: all-zero first steps of a stage stop the run; a live step, or zeros later in a
// stage, do not (src/engine/trainer/signalGuard.ts). Runs on the cpu backend, where no GPU error can occur.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MetricsLine } from '../../../src/engine/trainer/events';
import { NoTrainingSignalError, SignalGuard } from '../../../src/engine/trainer/signalGuard';

const dead: MetricsLine = { step: 0, 'actor/loss': 0, 'actor/entropy': 0, 'actor/grad_norm': 0, 'critic/x': 1 };
const live: MetricsLine = { step: 0, 'actor/loss': 0, 'actor/entropy': 1.3, 'actor/grad_norm': 0 };
const deadSft: MetricsLine = { step: 0, 'sft/loss': 0, 'sft/grad_norm': 0, 'sft/action_tokens': 0 };

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('SignalGuard', () => {
  it('stops a stage whose first three steps report exactly zero loss, entropy and gradient norm', () => {
    const g = new SignalGuard();
    g.observe('student', 1, 20, dead);
    g.observe('student', 2, 20, dead);
    expect(() => g.observe('student', 3, 20, dead)).toThrow(NoTrainingSignalError);
    expect(() => new SignalGuard().observe('sft', 1, 1, deadSft)).toThrow(
      /no training signal: sft\/loss, sft\/grad_norm, sft\/action_tokens were exactly 0 at each of the first 1 sft step\(s\) \(up to step 1\) on backend 'cpu'/,
    );
  });

  it('accepts zero loss and gradient with a positive entropy (GRPO with equal rewards)', () => {
    const g = new SignalGuard();
    for (let k = 1; k <= 5; k++) expect(() => g.observe('teacher', k, 5, live)).not.toThrow();
  });

  it('judges only the first steps of each stage: zeros after a live step pass', () => {
    const g = new SignalGuard();
    g.observe('student', 1, 20, dead);
    g.observe('student', 2, 20, live);
    for (let k = 3; k <= 10; k++) expect(() => g.observe('student', k, 20, dead)).not.toThrow();
    // a new stage is judged afresh
    g.observe('sft', 1, 8, deadSft);
    g.observe('sft', 2, 8, deadSft);
    expect(() => g.observe('sft', 3, 8, deadSft)).toThrow(NoTrainingSignalError);
  });

  it('stops a stage shorter than three steps that never showed a live step', () => {
    const g = new SignalGuard();
    g.observe('teacher', 1, 2, dead);
    expect(() => g.observe('teacher', 2, 2, dead)).toThrow(/first 2 teacher step/);
  });

  it('ignores stages without training metrics', () => {
    const g = new SignalGuard();
    for (let k = 1; k <= 3; k++) expect(() => g.observe('evaluation', k, 3, { step: k })).not.toThrow();
  });
});
