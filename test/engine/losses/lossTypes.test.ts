import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  actionMask,
  disposeStats,
  maskedMean,
  readStats,
  valueAndGradsWithStats,
} from '../../../src/engine/losses/lossTypes';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('loss plumbing', () => {
  it('actionMask marks actionHead and actionArg targets only', async () => {
    const cls = tf.tensor1d([-1, 0, 1, 2, 3, 4, 5], 'int32');
    const m = actionMask(cls);
    expect(Array.from(await m.data())).toEqual([0, 0, 0, 1, 1, 0, 0]);
    tf.dispose([cls, m]);
  });

  it('maskedMean is the mean over the mask and 0 (not NaN) for an empty mask', async () => {
    const x = tf.tensor1d([1, 2, 3, 4]);
    const a = maskedMean(x, tf.tensor1d([0, 1, 0, 1]));
    const b = maskedMean(x, tf.zeros([4]));
    expect((await a.data())[0]).toBe(3);
    expect((await b.data())[0]).toBe(0);
    tf.dispose([x, a, b]);
  });

  it('valueAndGradsWithStats keeps the statistics past the gradient scope and readStats reads them in one go', async () => {
    const v = tf.variable(tf.tensor1d([1, -2, 3]), true, 'plumbingV');
    const before = tf.memory().numTensors;
    const { value, grads, stats } = valueAndGradsWithStats(() => {
      const sq = tf.sum(tf.square(v)) as tf.Scalar;
      return { loss: sq, stats: { sq, maxAbs: tf.max(tf.abs(v)) as tf.Scalar } };
    }, [v]);
    const host = await readStats(stats);
    expect(host).toEqual({ sq: 14, maxAbs: 3 });
    expect((await value.data())[0]).toBe(14);
    expect(Array.from(await (grads['plumbingV'] as tf.Tensor).data())).toEqual([2, -4, 6]);
    value.dispose();
    tf.dispose(Object.values(grads));
    disposeStats(stats);
    expect(tf.memory().numTensors).toBe(before);
    v.dispose();
  });
});
