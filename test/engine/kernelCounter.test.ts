import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { countKernels, KernelCounter, readbackCount } from '../../src/engine/kernelCounter';

describe('kernel counter', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });

  it('counts each kernel invocation by name, forward and backward', async () => {
    const x = tf.tensor1d([1, 2, 3]);
    const { result, kernels } = await countKernels(() => tf.tidy(() => tf.add(tf.mul(x, x), x).dataSync()[2]));
    expect(result).toBe(12);
    expect(kernels.byName).toEqual({ Add: 1, Multiply: 1 });
    expect(kernels.total).toBe(2);
    expect(kernels.gpuPrograms).toBeNull(); // counted on webgpu only (test/engine/kernels/fusedKernels.test.ts)
    const g = await countKernels(() => tf.tidy(() => tf.grad((v: tf.Tensor) => tf.sum(tf.square(v)))(x)));
    expect(g.kernels.total).toBeGreaterThan(2);
    g.result.dispose();
    x.dispose();
  });

  it('stops counting when stopped, and nested counters see their own spans', () => {
    const outer = new KernelCounter();
    const inner = new KernelCounter();
    outer.start();
    tf.tidy(() => tf.neg(tf.scalar(1)));
    inner.start();
    tf.tidy(() => tf.neg(tf.scalar(1)));
    const i = inner.stop();
    const o = outer.stop();
    tf.tidy(() => tf.neg(tf.scalar(1)));
    expect(i.byName.Neg).toBe(1);
    expect(o.byName.Neg).toBe(2);
    expect(() => outer.stop()).toThrow(/not counting/);
  });

  it('counts every read of tensor values to the host, synchronous or not, and nothing else', async () => {
    const x = tf.tensor1d([1, 2, 3]);
    const { kernels } = await countKernels(async () => {
      x.dataSync();
      await x.data();
      x.arraySync();
      await x.array();
      tf.tidy(() => tf.add(x, x)); // a kernel is not a readback
    });
    expect(kernels.readbacks).toBe(4);
    const before = readbackCount();
    await x.bytes();
    expect(readbackCount() - before).toBe(1);
    x.dispose();
  });
});
