// The fused webgpu layer norm and GELU (src/engine/kernels/webgpuLayerNorm.ts, webgpuGelu.ts) against the composed
// versions in src/engine/layers.ts: values and gradients (w.r.t. x, gain and bias; through Σ probe · output), on
// random rows that include extreme ones (±80, a constant row whose variance is 0, a huge common offset).
// Tolerances, norm-wise relative (max |a − b| / max |b| per output): ≤ 1e-5 against the composed ops on the same
// webgpu backend, ≤ 1e-4 against cpu. Skipped with the reason printed when no webgpu adapter exists here.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../../../src/engine/backend';
import { countKernels } from '../../../src/engine/kernelCounter';
import { setFusedKernelsEnabled, useFusedKernels } from '../../../src/engine/kernels/registerWebgpuKernels';
import { gelu, layerNorm } from '../../../src/engine/layers';
import { parityErrors, type ParityOutputs } from '../losses/parityFixture';
import { normal, rng } from '../losses/reference';
import { BackendOrSkip } from '../helpers/webgpuOrSkip';

const TOLERANCE = 1e-5;
const CPU_TOLERANCE = 1e-4;
const ROWS = 24;
const D = 20;

const r = rng(5);
const x = Float32Array.from({ length: ROWS * D }, () => 2 * normal(r));
for (let c = 0; c < D; c++) {
  x[c] = c % 2 === 0 ? 80 : -80; // ±80
  x[D + c] = 3.5; // constant row: variance 0, x̂ = 0
  x[2 * D + c] = 80 + normal(r); // large common offset
  x[3 * D + c] = c === 7 ? 80 : 0; // one spike
}
const gain = Float32Array.from({ length: D }, () => 1 + 0.3 * normal(r));
const bias = Float32Array.from({ length: D }, () => 0.2 * normal(r));
const probe = Float32Array.from({ length: ROWS * D }, () => normal(r));
// GELU inputs: the same rows plus exact zeros and tiny values
const gx = Float32Array.from(x, (v, i) => (i % 11 === 0 ? 0 : i % 13 === 0 ? 1e-4 * v : v));

async function layerNormOutputs(): Promise<ParityOutputs> {
  const xs = tf.tensor2d(x, [ROWS, D]);
  const g = tf.tensor1d(gain);
  const b = tf.tensor1d(bias);
  const p = tf.tensor2d(probe, [ROWS, D]);
  const f = (a: tf.Tensor, ga: tf.Tensor, ba: tf.Tensor): tf.Scalar =>
    tf.sum(tf.mul(layerNorm(a as tf.Tensor2D, ga as tf.Tensor1D, ba as tf.Tensor1D), p));
  const y = layerNorm(xs, g, b);
  const { value, grads } = tf.valueAndGrads(f as (...t: tf.Tensor[]) => tf.Scalar)([xs, g, b]);
  const out: ParityOutputs = { y: Array.from(await y.data()) };
  for (const [i, name] of ['dx', 'dg', 'db'].entries()) out[name] = Array.from(await (grads[i] as tf.Tensor).data());
  tf.dispose([xs, g, b, p, y, value, ...grads]);
  return out;
}

async function geluOutputs(): Promise<ParityOutputs> {
  const xs = tf.tensor2d(gx, [ROWS, D]);
  const p = tf.tensor2d(probe, [ROWS, D]);
  const y = gelu(xs);
  const dx = tf.grad((a: tf.Tensor) => tf.sum(tf.mul(gelu(a), p)))(xs);
  const out = { y: Array.from(await y.data()), dx: Array.from(await dx.data()) };
  tf.dispose([xs, p, y, dx]);
  return out;
}

const CASES = [
  { name: 'layerNorm', outputs: layerNormOutputs, kernel: 'RetireLayerNorm' },
  { name: 'gelu', outputs: geluOutputs, kernel: 'RetireGelu' },
];

const gpu = new BackendOrSkip();
const cpu = new Map<string, ParityOutputs>();

beforeAll(async () => {
  await initBackend('cpu');
  for (const c of CASES) cpu.set(c.name, await c.outputs());
  await gpu.init('webgpu');
}, 60_000);

afterAll(async () => {
  setFusedKernelsEnabled(true);
  await tf.setBackend('cpu');
});

describe('fused webgpu layer kernels equal the composed tfjs ops', () => {
  for (const c of CASES) {
    it(`${c.name}: values and gradients within ${TOLERANCE} of composed webgpu and ${CPU_TOLERANCE} of cpu`, async (ctx) => {
      gpu.skipIfMissing(ctx);
      await tf.setBackend('webgpu');
      expect(useFusedKernels()).toBe(true);
      const before = tf.memory().numTensors;
      const { result: fused, kernels } = await countKernels(c.outputs);
      expect(tf.memory().numTensors).toBe(before);
      expect(kernels.byName[c.kernel]).toBeGreaterThan(0);
      setFusedKernelsEnabled(false);
      let composed: ParityOutputs;
      try {
        const counted = await countKernels(c.outputs);
        expect(Object.keys(counted.kernels.byName).some((k) => k.startsWith('Retire'))).toBe(false);
        composed = counted.result;
      } finally {
        setFusedKernelsEnabled(true);
      }
      for (const [ref, tol, what] of [
        [composed, TOLERANCE, 'composed webgpu'],
        [cpu.get(c.name) as ParityOutputs, CPU_TOLERANCE, 'cpu'],
      ] as const) {
        const errs = parityErrors(fused, ref);
        expect(Object.keys(errs).length).toBe(Object.keys(ref).length);
        for (const [k, err] of Object.entries(errs)) expect(err, `${c.name} ${k} vs ${what}`).toBeLessThanOrEqual(tol);
      }
    });
  }
});
