// readFloat32Batch: many tensors' values in one read-back, each array equal to the tensor's own data() bit for bit.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { readFloat32Batch } from '../../src/engine/hostTensor';
import { countKernels } from '../../src/engine/kernelCounter';

describe('readFloat32Batch', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });

  it('reads 40 tensors of mixed shapes in one read-back, bit-identical to data(), and frees what it made', async () => {
    const shapes = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? [] : i % 3 === 1 ? [i] : [2, i, 3]));
    const tensors = shapes.map((s, i) => tf.randomNormal(s, 0, 1, 'float32', i + 1));
    const want = tensors.map((t) => t.dataSync() as Float32Array);
    const before = tf.memory().numTensors;
    const { result, kernels } = await countKernels(() => readFloat32Batch(tensors));
    expect(kernels.readbacks).toBe(1);
    expect(tf.memory().numTensors).toBe(before);
    expect(result.map((a) => Array.from(a))).toEqual(want.map((a) => Array.from(a)));
    // no concat took more than 6 inputs (WebGPU's 8 storage buffers per stage: inputs + output)
    expect(kernels.byName.Concat).toBeLessThanOrEqual(Math.ceil(40 / 6) + Math.ceil(40 / 36) + 1);
    tf.dispose(tensors);
  });

  it('refuses a tensor that is not float32, naming its dtype', async () => {
    const t = tf.tensor1d([1, 2], 'int32');
    await expect(readFloat32Batch([t])).rejects.toThrow('readFloat32Batch: a int32 tensor of shape [2]');
    t.dispose();
  });
});
