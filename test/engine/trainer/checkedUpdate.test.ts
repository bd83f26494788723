// Actor gradient clipping by global norm (verl's actor.grad_clip; torch's clip_grad_norm_), checked on a loss whose
// gradient is known by hand: L = 3·a₀ + 4·a₁ + 12·b₀ has ∇ = (3, 4 | 12), global norm √(9 + 16 + 144) = 13.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { countKernels } from '../../../src/engine/kernelCounter';
import { checkedUpdate, gradClipCoefficient } from '../../../src/engine/trainer/checkedUpdate';
import type { TrainerOptimizer } from '../../../src/engine/trainer/enginePort';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** an optimizer stand-in that records the gradients it is handed (host copies) */
function recordingOptimizer(seen: Record<string, number[]>[]): TrainerOptimizer {
  return {
    apply(grads) {
      seen.push(Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, Array.from(g.dataSync())])));
    },
    getState: () => Promise.resolve({}),
    setState: () => Promise.resolve(),
    dispose: () => undefined,
  };
}

async function update(
  gradClip: number | null,
): Promise<{ grads: Record<string, number[]>; norm: number; coef: number }> {
  const a = tf.variable(tf.tensor1d([0.5, -1]), true, 'clipTestA');
  const b = tf.variable(tf.tensor1d([2]), true, 'clipTestB');
  const seen: Record<string, number[]>[] = [];
  const before = tf.memory().numTensors;
  const { host, clipCoef } = await checkedUpdate({
    stage: 'student',
    step: 1,
    optimizer: recordingOptimizer(seen),
    variables: [a, b],
    finiteTerms: {},
    gradClip,
    loss: () => ({
      loss: tf.tidy(() => tf.add(tf.sum(tf.mul(a, tf.tensor1d([3, 4]))), tf.mul(tf.sum(b), 12)) as tf.Scalar),
      stats: {},
    }),
  });
  expect(tf.memory().numTensors, 'no tensor is left behind').toBe(before);
  a.dispose();
  b.dispose();
  return { grads: seen[0]!, norm: Math.sqrt(host.gradNormSq), coef: clipCoef };
}

describe("actor gradient clipping by global norm (verl's actor.grad_clip)", () => {
  it('logs the pre-clip global norm 13 and hands the optimizer the gradient scaled to norm 1', async () => {
    const { grads, norm, coef } = await update(1);
    expect(norm).toBeCloseTo(13, 5);
    const want = 1 / (13 + 1e-6); // torch: max_norm / (total_norm + 1e-6)
    expect(coef).toBeCloseTo(want, 9);
    expect(grads.clipTestA![0]).toBeCloseTo(3 * want, 6);
    expect(grads.clipTestA![1]).toBeCloseTo(4 * want, 6);
    expect(grads.clipTestB![0]).toBeCloseTo(12 * want, 6);
    const clippedNorm = Math.hypot(...grads.clipTestA!, ...grads.clipTestB!);
    expect(clippedNorm).toBeCloseTo(1, 5);
  });

  it('leaves a gradient below the threshold as it is (clip 20 > 13)', async () => {
    const { grads, coef } = await update(20);
    expect(coef).toBe(1);
    expect(grads.clipTestA).toEqual([3, 4]);
    expect(grads.clipTestB).toEqual([12]);
  });

  it('clips nothing when the setting is 0 or null', async () => {
    for (const off of [0, null]) {
      const { grads, coef } = await update(off);
      expect(coef).toBe(1);
      expect(grads.clipTestB).toEqual([12]);
    }
  });

  it('computes the coefficient as clip_grad_norm_ does', () => {
    expect(gradClipCoefficient(12.5, 1)).toBeCloseTo(1 / 12.500001, 12);
    expect(gradClipCoefficient(0.5, 1)).toBe(1);
    expect(gradClipCoefficient(12.5, null)).toBe(1);
  });
});

describe('scalars read along with an update', () => {
  it("returns the caller's scalars in the same single read-back as the statistics, and leaves them to the caller", async () => {
    const a = tf.variable(tf.tensor1d([0.5, -1]), true, 'alsoReadA');
    const gap = tf.scalar(-0.25);
    const { result, kernels } = await countKernels(() =>
      checkedUpdate({
        stage: 'student',
        step: 1,
        optimizer: {
          apply: () => undefined,
          getState: () => Promise.resolve({}),
          setState: () => Promise.resolve(),
          dispose: () => undefined,
        },
        variables: [a],
        finiteTerms: {},
        alsoRead: { gap },
        loss: () => ({ loss: tf.tidy(() => tf.sum(tf.mul(a, 3)) as tf.Scalar), stats: {} }),
      }),
    );
    expect(kernels.readbacks).toBe(1);
    expect(result.host.gap).toBe(-0.25);
    expect(result.host.loss).toBe(-1.5);
    expect(gap.isDisposed).toBe(false);
    gap.dispose();
    a.dispose();
  });
});
