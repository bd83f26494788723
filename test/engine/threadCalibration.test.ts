import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../../src/engine/backend';
import { timeProbe } from '../../src/engine/threadCalibration';

describe('timeProbe', () => {
  it('returns a positive time on wasm and leaves no tensors behind', async () => {
    await initBackend('wasm');
    const before = tf.memory().numTensors;
    const ms = await timeProbe();
    expect(ms).toBeGreaterThan(0);
    expect(tf.memory().numTensors).toBe(before);
    await tf.setBackend('cpu');
  });
});
