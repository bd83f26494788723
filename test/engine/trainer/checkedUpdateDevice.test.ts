// checkedUpdate's device path on webgpu (Dawn on SwiftShader in Node): the global gradient norm, the clip coefficient
// and the all-finite flag are tensors handed to the Adam kernels, nothing is read before the update. Checked against
// the host path (read, check and clip on the host, then the same fused Adam) on the same losses: weights and Adam's
// slots agree within 1e-6 relative (float32: the two paths differ only in where min(1, c/(‖∇‖+1e-6)) is rounded); a
// NaN step leaves weights, moments and the bias-correction powers bit-identical, and refuses the step's later updates
// too. Skipped with the reason printed where no webgpu adapter exists.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countKernels } from '../../../src/engine/kernelCounter';
import { createAdam, getAdamState } from '../../../src/engine/optimizer';
import type { WebgpuAdamOptimizer } from '../../../src/engine/kernels/webgpuAdam';
import {
  checkedUpdate,
  checkRefused,
  queueCheckedUpdate,
  unpackUpdate,
  type CheckedUpdateRequest,
} from '../../../src/engine/trainer/checkedUpdate';
import type { TrainerOptimizer } from '../../../src/engine/trainer/enginePort';
import { NonFiniteError } from '../../../src/engine/trainer/events';
import { BackendOrSkip } from '../helpers/webgpuOrSkip';

const gpu = new BackendOrSkip();

beforeAll(async () => {
  await gpu.init('webgpu');
});

afterAll(async () => {
  await tf.setBackend('cpu');
});

/** the trainer's optimizer port on createAdam; `guarded` false hides applyGuarded, so checkedUpdate takes the host path */
function port(opt: WebgpuAdamOptimizer, guarded: boolean): TrainerOptimizer {
  return {
    apply: (grads) => opt.applyGradients(grads as Parameters<WebgpuAdamOptimizer['applyGradients']>[0]),
    ...(guarded
      ? {
          applyGuarded: (grads, _v, guard) =>
            opt.applyGuardedGradients(grads as Parameters<WebgpuAdamOptimizer['applyGradients']>[0], guard),
          forgetRefused: (updates) => opt.forgetRefusedUpdates(updates),
        }
      : {}),
    getState: () => getAdamState(opt),
    setState: () => Promise.resolve(),
    dispose: () => opt.dispose(),
  };
}

let serial = 0;

/** two variables a [2], b [1]; L = 3·a₀ + 4·a₁ + 12·b₀ + ½·k·(‖a‖² + b₀²): ∇ = (3 + k·a | 12 + k·b) */
function model(k: number) {
  const id = serial++;
  // tidy disposes the initial-value tensors; variables survive it
  const [a, b] = tf.tidy(() => [
    tf.variable(tf.tensor1d([0.5, -1]), true, `devClipA${id}`),
    tf.variable(tf.tensor1d([2]), true, `devClipB${id}`),
  ]) as [tf.Variable, tf.Variable];
  const request = (
    opt: TrainerOptimizer,
    gradClip: number | null,
    step: number,
    poison = false,
  ): CheckedUpdateRequest<'term'> => ({
    stage: 'student',
    step,
    optimizer: opt,
    variables: [a, b],
    finiteTerms: { term: 'grpo' },
    gradClip,
    loss: () => {
      const loss = tf.tidy(() => {
        const linear = tf.add(tf.sum(tf.mul(a, tf.tensor1d([3, 4]))), tf.mul(tf.sum(b), 12));
        const quad = tf.mul(tf.add(tf.sum(tf.square(a)), tf.sum(tf.square(b))), k / 2);
        const l = tf.add(linear, quad) as tf.Scalar;
        return poison ? (tf.mul(l, NaN) as tf.Scalar) : l;
      });
      return { loss, stats: { term: tf.clone(loss) } };
    },
  });
  return { a, b, request, dispose: () => tf.dispose([a, b]) };
}

/** weights, both moments and the powers β^(t+1), as host numbers */
async function snapshot(vars: tf.Variable[], opt: TrainerOptimizer): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const [i, v] of vars.entries()) out[`param${i}`] = Array.from(await v.data());
  const state = await opt.getState();
  for (const [key, h] of Object.entries(state))
    out[key.replace(/^devClip[AB]\d+/, (m) => m.slice(0, 8))] = Array.from(h.data);
  return out;
}

describe('checked update on the device (webgpu)', () => {
  it('clips by the global norm on the device: weights and Adam slots equal the host path within 1e-6 over 3 steps', async (ctx) => {
    gpu.skipIfMissing(ctx);
    await tf.setBackend('webgpu');
    const run = async (guarded: boolean) => {
      const before = tf.memory().numTensors;
      const m = model(0.7);
      const opt = port(createAdam({ learningRate: 0.05 }), guarded);
      const coefs: number[] = [];
      for (let step = 1; step <= 3; step++) coefs.push((await checkedUpdate(m.request(opt, 1, step))).clipCoef);
      const snap = await snapshot([m.a, m.b], opt);
      m.dispose();
      opt.dispose();
      expect(tf.memory().numTensors, 'no tensor is left behind').toBe(before);
      return { snap, coefs };
    };
    const host = await run(false);
    const device = await run(true);
    // step 1: ∇ = (3.35, 3.3 | 13.4), ‖∇‖ ≈ 14.22, so clipping acts (coefficient ≈ 0.0703)
    const norm1 = Math.hypot(3 + 0.7 * 0.5, 4 - 0.7, 12 + 0.7 * 2);
    expect(device.coefs[0]).toBeCloseTo(1 / (norm1 + 1e-6), 6);
    for (let i = 0; i < 3; i++) expect(device.coefs[i]).toBeCloseTo(host.coefs[i] as number, 6);
    expect(Object.keys(device.snap)).toEqual(Object.keys(host.snap));
    for (const [key, want] of Object.entries(host.snap)) {
      const got = device.snap[key] as number[];
      want.forEach((w, i) =>
        expect(Math.abs((got[i] as number) - w), key).toBeLessThanOrEqual(1e-6 * Math.abs(w) + 1e-9),
      );
    }
  });

  it('leaves weights, moments and the bias-correction powers untouched on a NaN step, and refuses the later updates of the step', async (ctx) => {
    gpu.skipIfMissing(ctx);
    await tf.setBackend('webgpu');
    const good = model(0.7);
    const opt = port(createAdam({ learningRate: 0.05 }), true);
    await checkedUpdate(good.request(opt, 1, 1)); // the moments exist and hold values
    const before = await snapshot([good.a, good.b], opt);
    // a NaN loss (so a NaN gradient): checkedUpdate names the term, as on the host path
    const poisoned = good.request(opt, 1, 2, true);
    const tensors = tf.memory().numTensors;
    await expect(checkedUpdate(poisoned)).rejects.toThrow(NonFiniteError);
    await expect(checkedUpdate(poisoned)).rejects.toThrow(/non-finite grpo at student step 2: grpo loss = NaN/);
    expect(await snapshot([good.a, good.b], opt)).toEqual(before);
    // chained: a finite update queued after the refused one is refused too (the host path stops before it)
    const first = queueCheckedUpdate(poisoned, null);
    const second = queueCheckedUpdate(good.request(opt, 1, 2), first.ok);
    const r1 = unpackUpdate(first, await first.packed.data());
    const r2 = unpackUpdate(second, await second.packed.data());
    expect(r1.host.gradNormSq).toBeNaN();
    // as policyUpdate does after its one read: the first refused update throws and takes back both step counts
    expect(() => checkRefused(poisoned, r1.host, 2)).toThrow(/non-finite grpo at student step 2/);
    expect(Number.isFinite(r2.host.gradNormSq)).toBe(true);
    expect((await second.ok.data())[0]).toBe(0);
    tf.dispose([first.packed, first.ok, second.packed, second.ok]);
    expect(await snapshot([good.a, good.b], opt)).toEqual(before);
    expect(tf.memory().numTensors, 'no tensor is left behind').toBe(tensors);
    good.dispose();
    opt.dispose();
  });

  it('reads nothing to the host before the update: the queued update makes no read-back', async (ctx) => {
    gpu.skipIfMissing(ctx);
    await tf.setBackend('webgpu');
    const m = model(0.7);
    const opt = port(createAdam({ learningRate: 0.05 }), true);
    const { result: q, kernels } = await countKernels(() => queueCheckedUpdate(m.request(opt, 1, 1), null));
    expect(kernels.readbacks).toBe(0);
    expect(kernels.byName.RetireAdamUpdate).toBe(2);
    tf.dispose([q.packed, q.ok]);
    m.dispose();
    opt.dispose();
  });
});
