// createAdam's optimizer (src/engine/kernels/webgpuAdam.ts): tfjs's own Adam on cpu (bit-identical), fused WGSL
// kernels on webgpu that equal tfjs's Adam within 1e-5 (norm-wise relative, parameters and both moments, over 3 steps
// with gradients of mixed scale), 3 dispatches per variable, and a checkpoint round trip (getAdamState → setAdamState)
// that resumes bit-exactly on webgpu. webgpu cases are skipped with the reason printed when no adapter exists here.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countKernels } from '../../../src/engine/kernelCounter';
import { setFusedKernelsEnabled } from '../../../src/engine/kernels/registerWebgpuKernels';
import { createAdam, getAdamState, setAdamState, type AdamState } from '../../../src/engine/optimizer';
import { parityErrors } from '../losses/parityFixture';
import { normal, rng } from '../losses/reference';
import { BackendOrSkip } from '../helpers/webgpuOrSkip';

const SHAPES = [[3, 4], [5], [], [2, 2, 3]];
const CONFIG = { learningRate: 3e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };
let instance = 0;

/** host values of the variables and of the gradient of every step, seeded */
function fixture(steps: number): { init: Float32Array[]; grads: Float32Array[][] } {
  const r = rng(11);
  const size = (s: number[]) => s.reduce((a, b) => a * b, 1);
  const init = SHAPES.map((s) => Float32Array.from({ length: size(s) }, () => normal(r)));
  // mixed scales, including exact zeros and 1e-6-sized gradients
  const grads = Array.from({ length: steps }, (_, k) =>
    SHAPES.map((s, j) =>
      Float32Array.from({ length: size(s) }, (_, i) => (i % 5 === 0 ? 0 : normal(r) * 10 ** (j - k - 2))),
    ),
  );
  return { init, grads };
}

interface Run {
  params: number[][];
  state: AdamState;
}

/** runs `steps` Adam steps from the fixture; `resumeAt` saves the state there and continues on a restored copy */
async function runAdam(make: () => tf.AdamOptimizer, steps: number, resumeAt?: number): Promise<Run> {
  const { init, grads } = fixture(steps);
  const id = instance++;
  // tidy disposes the initial-value tensors; variables survive it
  let vars = tf.tidy(() => init.map((d, j) => tf.variable(tf.tensor(d, SHAPES[j]), true, `adam_t${id}_${j}`)));
  let opt = make();
  try {
    for (let k = 0; k < steps; k++) {
      if (k === resumeAt) {
        const state = await getAdamState(opt);
        const values = await Promise.all(vars.map((v) => v.data()));
        const fresh = tf.tidy(() =>
          values.map((d, j) => tf.variable(tf.tensor(d, SHAPES[j]), true, `adam_t${id}_r${j}`)),
        );
        const restored = make(); // a fresh optimizer: setAdamState creates its moments (matched by position)
        await setAdamState(restored, state);
        tf.dispose(vars);
        opt.dispose();
        vars = fresh;
        opt = restored;
      }
      tf.tidy(() =>
        opt.applyGradients(vars.map((v, j) => ({ name: v.name, tensor: tf.tensor(grads[k]?.[j] ?? [], SHAPES[j]) }))),
      );
    }
    const params = await Promise.all(vars.map(async (v) => Array.from(await v.data())));
    return { params, state: await getAdamState(opt) };
  } finally {
    tf.dispose(vars);
    opt.dispose();
  }
}

const stock = () => tf.train.adam(CONFIG.learningRate, CONFIG.beta1, CONFIG.beta2, CONFIG.epsilon);
const lab = () => createAdam(CONFIG);

function asOutputs(r: Run): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  r.params.forEach((p, j) => (out[`param${j}`] = p));
  for (const [k, h] of Object.entries(r.state)) out[`state:${k.replace(/^adam_t\d+_r?/, '')}`] = Array.from(h.data);
  return out;
}

const gpu = new BackendOrSkip();

beforeAll(async () => {
  await gpu.init('webgpu');
});

afterAll(async () => {
  setFusedKernelsEnabled(true);
  await tf.setBackend('cpu');
});

describe('createAdam', () => {
  it('is tfjs Adam on cpu: parameters and state bit-identical after 3 steps', async () => {
    await tf.setBackend('cpu');
    const a = asOutputs(await runAdam(stock, 3));
    const b = asOutputs(await runAdam(lab, 3));
    expect(Object.keys(b)).toEqual(Object.keys(a));
    for (const k of Object.keys(a)) expect(b[k], k).toEqual(a[k]);
  });

  it('on webgpu runs fused kernels equal to tfjs Adam within 1e-5, 3 dispatches per variable', async (ctx) => {
    gpu.skipIfMissing(ctx);
    await tf.setBackend('webgpu');
    const before = tf.memory().numTensors;
    const { result: fusedRun, kernels } = await countKernels(() => runAdam(lab, 3));
    expect(tf.memory().numTensors).toBe(before);
    expect(kernels.byName.RetireAdamMoment).toBe(2 * SHAPES.length * 3);
    expect(kernels.byName.RetireAdamUpdate).toBe(SHAPES.length * 3);
    expect(kernels.byName.Sqrt).toBeUndefined();
    setFusedKernelsEnabled(false);
    let composed: Run;
    try {
      composed = await runAdam(stock, 3);
    } finally {
      setFusedKernelsEnabled(true);
    }
    const errs = parityErrors(asOutputs(fusedRun), asOutputs(composed));
    expect(Object.keys(errs).length).toBe(Object.keys(asOutputs(composed)).length);
    for (const [k, err] of Object.entries(errs)) expect(err, k).toBeLessThanOrEqual(1e-5);
    // the step count and the accumulated powers are the same numbers, not just close
    expect(fusedRun.state.iter?.data[0]).toBe(3);
    expect(fusedRun.state.beta1_power?.data[0]).toBe(composed.state.beta1_power?.data[0]);
    expect(fusedRun.state.beta2_power?.data[0]).toBe(composed.state.beta2_power?.data[0]);
  });

  it('on webgpu resumes from getAdamState / setAdamState bit-exactly', async (ctx) => {
    gpu.skipIfMissing(ctx);
    await tf.setBackend('webgpu');
    const straight = await runAdam(lab, 4);
    const resumed = await runAdam(lab, 4, 2);
    expect(resumed.params).toEqual(straight.params);
    expect(Object.values(resumed.state).map((h) => Array.from(h.data))).toEqual(
      Object.values(straight.state).map((h) => Array.from(h.data)),
    );
  });
});
