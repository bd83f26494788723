import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  tokenEntropy,
  tokenLogProbs,
  tokenLogProbsAndEntropy,
  tokenLogProbsComposed,
  tokenStats,
} from '../../../src/engine/losses/tokenLogProbs';
import { shiftTargets, NO_TARGET } from '../../../src/engine/losses/lossTypes';
import { initBackend } from '../../../src/engine/backend';
import { makeCase, numericGrad, refEntropy, refTokenLogProbs, rng, tfValueAndGrad, type Case } from './reference';
import { expectClose } from './assertions';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** tf.memory().numTensors is the same after 20 more value-and-gradient calls of `loss` as after the first. */
function expectFlatTensors(c: Case, loss: (logits: tf.Tensor, targets: tf.Tensor) => tf.Scalar): void {
  const z = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
  const t = tf.tensor2d(c.targets, [c.B, c.T], 'int32');
  const step = () => {
    const { value, grad } = tf.valueAndGrad((x: tf.Tensor) => loss(x, t))(z);
    tf.dispose([value, grad]);
  };
  step();
  const before = tf.memory().numTensors;
  for (let i = 0; i < 20; i++) step();
  expect(tf.memory().numTensors).toBe(before);
  tf.dispose([z, t]);
}

describe('tokenLogProbs', () => {
  const c = makeCase(11, 3, 5, 7);
  // a random weighting of the per-position values turns them into one scalar whose gradient covers every entry
  const w = Float64Array.from({ length: c.B * c.T }, rng(5));
  const weighted = (values: Float64Array) => values.reduce((s, v, i) => s + v * (w[i] ?? 0), 0);

  it('matches the float64 log-softmax of the target at every position (1e-4 relative)', () => {
    const lp = tf.tidy(() =>
      tokenLogProbs(
        tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]),
        tf.tensor2d(c.targets, [c.B, c.T], 'int32'),
      ),
    );
    expectClose(lp.dataSync(), refTokenLogProbs(c.logits, c.targets, c.V));
    lp.dispose();
  });

  for (const [name, fn] of [
    ['fused', tokenLogProbs],
    ['composed', tokenLogProbsComposed],
    ['shared-logSoftmax', (z: tf.Tensor, t: tf.Tensor) => tokenLogProbsAndEntropy(z, t).logProbs],
  ] as const) {
    it(`${name}: gradient w.r.t. logits equals the finite-difference gradient of the float64 reference`, () => {
      const targets = tf.tensor2d(c.targets, [c.B, c.T], 'int32');
      const wt = tf.tensor2d(Float32Array.from(w), [c.B, c.T]);
      const { value, grad } = tfValueAndGrad(c, (z) => tf.sum(tf.mul(fn(z, targets), wt)) as tf.Scalar);
      const f = (x: Float64Array) => weighted(refTokenLogProbs(x, c.targets, c.V));
      expectClose([value], [f(c.logits)]);
      expectClose(grad, numericGrad(f, c.logits));
      tf.dispose([targets, wt]);
    });
  }

  it('entropy and its gradient match the float64 reference', () => {
    const { value, grad } = tfValueAndGrad(c, (z) => {
      const wt = tf.tensor2d(Float32Array.from(w), [c.B, c.T]);
      return tf.sum(tf.mul(tokenEntropy(z), wt)) as tf.Scalar;
    });
    const f = (x: Float64Array) => weighted(refEntropy(x, c.V));
    expectClose([value], [f(c.logits)]);
    expectClose(grad, numericGrad(f, c.logits));
  });

  it('rejects logits whose leading shape differs from the targets', () => {
    const z = tf.zeros([2, 3, 4]);
    const t = tf.zeros([2, 4], 'int32');
    expect(() => tokenLogProbs(z, t)).toThrow(/logits \[2, 3, 4\] must be targets \[2, 4\]/);
    tf.dispose([z, t]);
  });

  it('leaves tf.memory().numTensors flat over repeated value-and-gradient calls', () => {
    expectFlatTensors(c, (x, t) => tf.sum(tokenLogProbs(x, t)) as tf.Scalar);
  });
});

describe('tokenStats (one pass over the vocabulary for every loss of a forward)', () => {
  const c = makeCase(12, 3, 5, 7);
  const wA = Float32Array.from({ length: c.B * c.T }, rng(6));
  const wB = Float32Array.from({ length: c.B * c.T }, rng(7));
  // two losses of the same logits, as GRPO and OPD are: Σ wA·lp + Σ wB·exp(lp) (a non-linear second reader)
  const twoLosses = (lp1: tf.Tensor, lp2: tf.Tensor): tf.Scalar =>
    tf.add(
      tf.sum(tf.mul(lp1, tf.tensor2d(wA, [c.B, c.T]))),
      tf.sum(tf.mul(tf.exp(lp2), tf.tensor2d(wB, [c.B, c.T]))),
    ) as tf.Scalar;
  const bits = (x: Float32Array) => Array.from(new Uint32Array(x.buffer, x.byteOffset, x.length)); // exactly its own floats

  for (const backend of ['cpu', 'wasm'] as const) {
    it(`gives the same log-probs and the same gradient bits as one tokenLogProbs per loss (${backend})`, async () => {
      await initBackend(backend);
      try {
        const targets = tf.tensor2d(c.targets, [c.B, c.T], 'int32');
        const separate = tfValueAndGrad(c, (z) => twoLosses(tokenLogProbs(z, targets), tokenLogProbs(z, targets)));
        const shared = tfValueAndGrad(c, (z) => {
          const s = tokenStats(z, targets);
          return twoLosses(s.logProbs(), s.logProbs());
        });
        expect(bits(Float32Array.of(shared.value))).toEqual(bits(Float32Array.of(separate.value)));
        expect(bits(shared.grad)).toEqual(bits(separate.grad));
        const [a, b] = tf.tidy(() => {
          const z = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
          return [tokenLogProbs(z, targets), tokenStats(z, targets).logProbs()];
        });
        expect(bits(a!.dataSync() as Float32Array)).toEqual(bits(b!.dataSync() as Float32Array));
        tf.dispose([a!, b!, targets]);
      } finally {
        await tf.setBackend('cpu');
      }
    });
  }

  it('gives the entropy of the float64 reference (1e-4 relative)', () => {
    const h = tf.tidy(() =>
      tokenStats(
        tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]),
        tf.tensor2d(c.targets, [c.B, c.T], 'int32'),
      ).entropy(),
    );
    expectClose(h.dataSync(), refEntropy(c.logits, c.V));
    h.dispose();
  });

  it('leaves tf.memory().numTensors flat over repeated value-and-gradient calls', () => {
    expectFlatTensors(c, (x, t) => {
      const s = tokenStats(x, t);
      return tf.add(twoLosses(s.logProbs(), s.logProbs()), tf.sum(s.entropy())) as tf.Scalar;
    });
  });
});

describe('shiftTargets', () => {
  it('puts token t + 1 and its class at position t, and NO_TARGET at the end of each row and past its length', () => {
    const tokens = [1, 10, 11, 12, 1, 20, 21, 0];
    const classes = [5, 0, 2, 4, 5, 3, 3, 5];
    const s = shiftTargets(tokens, classes, 2, 4, [4, 3]);
    expect(Array.from(s.targets)).toEqual([10, 11, 12, 0, 20, 21, 0, 0]);
    expect(Array.from(s.targetClasses)).toEqual([0, 2, 4, NO_TARGET, 3, 3, NO_TARGET, NO_TARGET]);
  });
});
