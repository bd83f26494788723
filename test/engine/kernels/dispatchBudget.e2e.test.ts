// Dispatch budget of the W1 training step on webgpu (goal: ≤ 300 GPU dispatches per step, from ~680 with the
// composed ops): the reference model (vocab 64, context 128, 2 layers × 64 wide, 4 heads, MLP 256), a masked
// weighted token cross-entropy and one createAdam step, counted as WGSL programs (kernelCounter's gpuPrograms).
// The count does not depend on the batch (measured equal at batch 2 and 8), so this runs batch 1 to keep
// SwiftShader's time down. A count, not a timing. Skipped with the reason printed when no webgpu adapter exists.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countKernels } from '../../../src/engine/kernelCounter';
import { setFusedKernelsEnabled } from '../../../src/engine/kernels/registerWebgpuKernels';
import { tokenLogProbs } from '../../../src/engine/losses/tokenLogProbs';
import { PolicyModel } from '../../../src/engine/model';
import type { ModelConfig } from '../../../src/engine/modelConfig';
import { BENCH_MODEL } from '../../../src/engine/benchWorkloads';
import { createAdam } from '../../../src/engine/optimizer';
import { rng } from '../losses/reference';
import { BackendOrSkip } from '../helpers/webgpuOrSkip';

/** the W1 reference model of the benchmark (src/engine/benchWorkloads.ts) */
const W1: ModelConfig = BENCH_MODEL;
const BUDGET = 300;

/** GPU programs of one W1 step (after one warm-up step) with the fused kernels on or off */
async function programsPerStep(fused: boolean): Promise<number> {
  setFusedKernelsEnabled(fused);
  const model = new PolicyModel(W1, 3, `w1_budget_${fused ? 'fused' : 'composed'}`);
  const optimizer = createAdam({ learningRate: 1e-3 });
  const r = rng(4);
  const T = W1.contextTokens;
  const all = tf.tensor2d(
    Int32Array.from({ length: T }, () => Math.floor(r() * W1.vocabSize)),
    [1, T],
    'int32',
  );
  const inputs = tf.slice(all, [0, 0], [1, T - 1]) as tf.Tensor2D;
  const targets = tf.slice(all, [0, 1], [1, T - 1]);
  const weights = tf.tensor2d(
    Float32Array.from({ length: T - 1 }, () => r()),
    [1, T - 1],
  );
  const step = async (): Promise<void> => {
    const loss = optimizer.minimize(
      () => tf.neg(tf.sum(tf.mul(tokenLogProbs(model.forward(inputs), targets), weights))) as tf.Scalar,
      true,
      model.trainableVariables,
    ) as tf.Scalar;
    await loss.data();
    loss.dispose();
  };
  try {
    await step();
    const { kernels } = await countKernels(step);
    return kernels.gpuPrograms ?? Number.NaN;
  } finally {
    tf.dispose([all, inputs, targets, weights]);
    optimizer.dispose();
    model.dispose();
    setFusedKernelsEnabled(true);
  }
}

const gpu = new BackendOrSkip();

beforeAll(async () => {
  await gpu.init('webgpu');
});

afterAll(async () => {
  setFusedKernelsEnabled(true);
  await tf.setBackend('cpu');
});

describe('W1 step on webgpu', () => {
  it(`dispatches at most ${BUDGET} GPU programs with the fused kernels (several hundred more without)`, async (ctx) => {
    gpu.skipIfMissing(ctx);
    const fused = await programsPerStep(true);
    const composed = await programsPerStep(false);
    console.log(`W1 step on webgpu: ${fused} GPU programs fused, ${composed} composed`);
    expect(fused).toBeLessThanOrEqual(BUDGET);
    expect(composed).toBeGreaterThan(2 * fused);
  }, 300_000);
});
