// "All zeros" is a failure: a backend that computes nothing — here the cpu backend with every Sum overwritten by
// zeros, as the stale buffers of a refused WebGPU kernel looked — stops the run with an error at the third SFT
// step instead of training on and drawing flat lines (trainer.e2e.test.ts runs the same preset to completion).
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPreset } from '../../../src/core/experiment/preset';
import { lookupPreset } from '../../support/presets';
import { runTrainer } from '../helpers/runTrainer';

const original = tf.getKernel('Sum', 'cpu');

beforeAll(async () => {
  await tf.setBackend('cpu');
  if (original === undefined) throw new Error('tfjs cpu has no Sum kernel');
  tf.unregisterKernel('Sum', 'cpu');
  tf.registerKernel({
    kernelName: 'Sum',
    backendName: 'cpu',
    kernelFunc: (args) => {
      const out = original.kernelFunc(args) as tf.TensorInfo;
      const data = (args.backend as unknown as { data: { get(id: object): { values: Float32Array } } }).data;
      data.get(out.dataId).values.fill(0);
      return out;
    },
  });
});

afterAll(() => {
  tf.unregisterKernel('Sum', 'cpu');
  if (original) tf.registerKernel(original);
});

describe('a backend that computes nothing', () => {
  it('stops the run at the third SFT step with an error naming the zero metrics and the backend', async () => {
    const config = { ...loadPreset('smoke', lookupPreset).config, seed: 2 };
    const { summary, events } = await runTrainer(config);
    expect(summary.status).toBe('failed');
    expect(summary.error).toMatch(
      /^no training signal: sft\/loss, sft\/grad_norm, sft\/action_tokens were exactly 0 at each of the first 3 sft step\(s\) \(up to step 3\) on backend 'cpu'/,
    );
    const error = events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ type: 'error', stage: 'sft', step: 3 });
    // the all-zero steps were never emitted as if they were results
    expect(events.filter((e) => e.type === 'step')).toHaveLength(2);
    expect(events.some((e) => e.type === 'step' && e.stage === 'student')).toBe(false);
  }, 120_000);
});
