// The wasm one-kernel Adam step (src/engine/wasmAdam.ts, used by createAdam on wasm) against tfjs's own Adam on
// the same backend: bit-identical parameters and moments after several steps, one kernel per variable.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../../src/engine/backend';
import { countKernels } from '../../src/engine/kernelCounter';
import { createAdam } from '../../src/engine/optimizer';
import { SeededRandom } from '../../src/engine/sampling';

const SHAPES: number[][] = [[7, 5], [5], [3, 4, 2]];

function values(n: number, r: SeededRandom, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, () => r.normal() * scale);
}

describe('wasm Adam step', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });
  afterAll(async () => {
    await tf.setBackend('cpu');
  });

  it("matches tf.train.adam bit for bit over 4 steps, with 1 kernel per variable instead of tfjs's 14", async () => {
    const config = { learningRate: 0.01, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };
    const r = new SeededRandom(3);
    const init = SHAPES.map((s) =>
      values(
        s.reduce((a, b) => a * b, 1),
        r,
      ),
    );
    const grads = [0, 1, 2, 3].map(() =>
      SHAPES.map((s) =>
        values(
          s.reduce((a, b) => a * b, 1),
          r,
          0.1,
        ),
      ),
    );
    const run = async (
      opt: tf.AdamOptimizer,
      tag: string,
    ): Promise<{ values: number[][]; kernels: number[]; leaked: number }> => {
      const before = tf.memory().numTensors;
      const vars = SHAPES.map((s, i) => tf.variable(tf.tensor(init[i] as Float32Array, s), true, `${tag}_${i}`));
      const kernels: number[] = [];
      for (const step of grads) {
        const named: { name: string; tensor: tf.Tensor }[] = vars.map((v, i) => ({
          name: v.name,
          tensor: tf.tensor(step[i] as Float32Array, v.shape),
        }));
        const { kernels: k } = await countKernels(() => opt.applyGradients(named));
        kernels.push(k.total);
        tf.dispose(named.map((x) => x.tensor));
      }
      const weights = await opt.getWeights();
      const out = [
        ...vars.map((v) => Array.from(v.dataSync())),
        ...weights.map((w) => Array.from(w.tensor.dataSync())),
      ];
      tf.dispose([...vars, ...weights.map((w) => w.tensor)]);
      opt.dispose();
      return { values: out, kernels, leaked: tf.memory().numTensors - before };
    };
    const stock = await run(tf.train.adam(config.learningRate, config.beta1, config.beta2, config.epsilon), 'stock');
    const fused = await run(createAdam(config), 'fused');
    expect(fused.values).toEqual(stock.values);
    // per step: 3 variables × 1 kernel, plus 2 Sub (1 − β^t) and 2 Multiply (β^t updates) shared by all
    expect(fused.kernels.slice(1)).toEqual([7, 7, 7]);
    expect(stock.kernels[1]).toBe(3 * 14 + 4);
    // tfjs keeps one tensor per optimizer it never frees (both paths): the fused step adds none
    expect(fused.leaked).toBe(stock.leaked);
    expect(fused.leaked).toBeLessThanOrEqual(1);
  });
});
