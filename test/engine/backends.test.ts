// Cross-backend agreement of the model's forward pass and gradients (cpu is the reference), and of the wasm
// kernel replacements. webgpu runs in Node through the `webgpu` package when an adapter exists, else it is skipped
// with the reason printed.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackendUnavailableError, initBackend, type BackendName } from '../../src/engine/backend';
import { matMul } from '../../src/engine/layers';
import { PolicyModel } from '../../src/engine/model';
import { makeModelConfig } from '../../src/engine/modelConfig';
import { SeededRandom } from '../../src/engine/sampling';

// T = 32 and head width 16 make the attention products large enough for the wasm replacement BatchMatMul kernel
const config = makeModelConfig('small', { vocabSize: 21, contextTokens: 40, width: 32, heads: 2, layers: 2, mlp: 48 });
const B = 3;
const T = 32;
const rng = new SeededRandom(9);
const tokens = Array.from({ length: B * T }, () => rng.nextUint32() % config.vocabSize);
const probe = Float32Array.from({ length: B * T * config.vocabSize }, () => rng.normal());

interface Result {
  logits: Float32Array;
  grads: Map<string, Float32Array>;
}

async function run(backend: BackendName): Promise<Result> {
  await initBackend(backend);
  const tensorsBefore = tf.memory().numTensors;
  const m = new PolicyModel(config, 17, `x_${backend}`);
  try {
    const x = tf.tensor2d(tokens, [B, T], 'int32');
    const w = tf.tensor3d(probe, [B, T, config.vocabSize]);
    const logits = tf.tidy(() => m.forward(x));
    const { value, grads } = tf.variableGrads(() => tf.sum(tf.mul(m.forward(x), w)) as tf.Scalar, m.trainableVariables);
    const out: Result = { logits: (await logits.data()) as Float32Array, grads: new Map() };
    for (const key of m.parameterKeys) {
      const g = grads[m.variable(key).name] as tf.Tensor;
      out.grads.set(key, (await g.data()) as Float32Array);
    }
    tf.dispose([x, w, logits, value, ...Object.values(grads)]);
    return out;
  } finally {
    m.dispose();
    // forward + gradient paths (incl. the wasm replacement kernels and custom gradients) leave nothing behind
    expect(tf.memory().numTensors).toBe(tensorsBefore);
  }
}

function relDiff(a: Float32Array, b: Float32Array): number {
  let diff = 0;
  let scale = 1e-12;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs((a[i] as number) - (b[i] as number)));
    scale = Math.max(scale, Math.abs(b[i] as number));
  }
  return diff / scale;
}

describe('backends agree with cpu', () => {
  let ref: Result;
  beforeAll(async () => {
    ref = await run('cpu');
  });
  afterAll(async () => {
    await tf.setBackend('cpu');
  });

  for (const backend of ['wasm', 'webgpu'] as const) {
    it(`${backend}: same logits (≤ 1e-5 relative) and gradients (≤ 1e-4 relative) as cpu`, async (ctx) => {
      let got: Result;
      try {
        got = await run(backend);
      } catch (e) {
        if (e instanceof BackendUnavailableError) {
          console.warn(`skipping ${backend}: ${e.message}`);
          ctx.skip();
        }
        throw e;
      }
      expect(relDiff(got.logits, ref.logits)).toBeLessThan(1e-5);
      let worst = 0;
      let worstKey = '';
      for (const [key, g] of ref.grads) {
        const d = relDiff(got.grads.get(key) as Float32Array, g);
        if (d > worst) [worst, worstKey] = [d, key];
      }
      expect(worst, `worst gradient: ${worstKey}`).toBeLessThan(1e-4);
      expect(ref.grads.size).toBe(got.grads.size);
    });
  }
});

describe('wasm kernel replacements and matMul fast paths', () => {
  it('slice, split and unstack give the cpu results on contiguous and strided ranges', async () => {
    const x = Array.from({ length: 4 * 5 * 6 }, (_, i) => i * 0.5 - 7);
    const cases = (t: tf.Tensor): tf.Tensor[] => [
      tf.slice(t, [1, 0, 0], [2, 5, 6]),
      tf.slice(t, [1, 2, 3], [3, 2, 2]),
      tf.slice(t, [0, 1, 0], [4, 3, 6]),
      ...tf.split(t, [1, 2, 3], 2),
      ...tf.split(t, 2, 0),
      ...tf.unstack(t, 0),
      ...tf.unstack(t, 1),
      tf.slice(tf.tensor1d([1, 2, 3, 4], 'int32'), [1], [2]),
    ];
    await tf.setBackend('cpu');
    const want = tf.tidy(() =>
      cases(tf.tensor3d(x, [4, 5, 6])).map((t) => ({ shape: t.shape, v: Array.from(t.dataSync()) })),
    );
    await initBackend('wasm');
    const got = tf.tidy(() =>
      cases(tf.tensor3d(x, [4, 5, 6])).map((t) => ({ shape: t.shape, v: Array.from(t.dataSync()) })),
    );
    expect(got).toEqual(want);
  });

  it("a clone shares its input's data on wasm, outlives the original, and frees the data with the last reference", async () => {
    await initBackend('wasm');
    const before = tf.memory();
    const a = tf.tensor2d([1.5, -2, 3, 4.25], [2, 2]);
    const b = tf.clone(a); // the Identity kernel; the stock wasm kernel copied into new memory
    expect(b.dataId).toBe(a.dataId);
    a.dispose();
    expect(Array.from(await b.data())).toEqual([1.5, -2, 3, 4.25]);
    expect(tf.memory().numBytes).toBe(before.numBytes + 16);
    b.dispose();
    expect(tf.memory().numTensors).toBe(before.numTensors);
    expect(tf.memory().numBytes).toBe(before.numBytes);
    // strings keep the stock kernel
    const s = tf.tensor1d(['x', 'yz']);
    const t = tf.clone(s);
    s.dispose();
    expect(await t.data()).toEqual(['x', 'yz']);
    t.dispose();
  });

  it('gather gives the cpu results on every axis, float32 and int32, and names an index out of range', async () => {
    const x = Array.from({ length: 4 * 5 * 6 }, (_, i) => i * 0.5 - 7);
    const cases = (t: tf.Tensor): tf.Tensor[] => [
      tf.gather(t, tf.tensor1d([3, 0, 0, 2], 'int32'), 0),
      tf.gather(t, tf.tensor2d([4, 1, 1, 0], [2, 2], 'int32'), 1),
      tf.gather(t, tf.tensor1d([5, 0], 'int32'), 2),
      tf.gather(tf.tensor1d([10, 20, 30], 'int32'), tf.tensor1d([2, 2, 0], 'int32')),
    ];
    await tf.setBackend('cpu');
    const want = tf.tidy(() =>
      cases(tf.tensor3d(x, [4, 5, 6])).map((t) => ({ shape: t.shape, dtype: t.dtype, v: Array.from(t.dataSync()) })),
    );
    await initBackend('wasm');
    const got = tf.tidy(() =>
      cases(tf.tensor3d(x, [4, 5, 6])).map((t) => ({ shape: t.shape, dtype: t.dtype, v: Array.from(t.dataSync()) })),
    );
    expect(got).toEqual(want);
    expect(() => tf.tidy(() => tf.gather(tf.tensor1d([1, 2]), tf.tensor1d([2], 'int32')))).toThrow(
      /gather: index 2 at 0 is outside \[0, 1\]/,
    );
    await tf.setBackend('cpu');
  });

  it('matMul with transposes and batches matches tf.matMul on cpu, gradients included', async () => {
    const shapes: [number[], number[], boolean, boolean][] = [
      [[3, 2, 40, 16], [3, 2, 40, 16], false, true],
      [[3, 2, 40, 40], [3, 2, 40, 16], false, false],
      [[6, 40, 16], [6, 40, 40], true, false],
      [[2, 50, 30], [2, 40, 50], true, true],
      [[70, 20], [20, 90], false, false],
    ];
    const compute = (): number[][] =>
      shapes.flatMap(([sa, sb, ta, tb], k) => {
        const r = new SeededRandom(k);
        const a = tf.tensor(
          Float32Array.from({ length: sa.reduce((p, q) => p * q, 1) }, () => r.normal()),
          sa,
        );
        const b = tf.tensor(
          Float32Array.from({ length: sb.reduce((p, q) => p * q, 1) }, () => r.normal()),
          sb,
        );
        const f = (x: tf.Tensor, y: tf.Tensor): tf.Tensor => tf.sum(tf.square(matMul(x, y, ta, tb)));
        const { value, grads } = tf.valueAndGrads(f)([a, b]);
        const out = [
          Array.from(matMul(a, b, ta, tb).dataSync()),
          [value.dataSync()[0] as number],
          ...grads.map((g) => Array.from(g.dataSync())),
        ];
        tf.dispose([a, b, value, ...grads]);
        return out;
      });
    await tf.setBackend('cpu');
    const want = tf.tidy(compute);
    await initBackend('wasm');
    const got = tf.tidy(compute);
    got.forEach((g, i) =>
      expect(relDiff(Float32Array.from(g), Float32Array.from(want[i] as number[]))).toBeLessThan(1e-5),
    );
    await tf.setBackend('cpu');
  });
});

describe('wasm OneHot', () => {
  it('honours dtype float32 and out-of-range indices like cpu', async () => {
    const make = (): number[][] =>
      tf.tidy(() => [
        Array.from(tf.oneHot(tf.tensor1d([1, 0, 4, -1, 7], 'int32'), 5, 2, -1, 'float32').dataSync()),
        Array.from(tf.oneHot(tf.tensor1d([3, 2], 'int32'), 4).dataSync()),
      ]);
    await tf.setBackend('cpu');
    const want = make();
    await initBackend('wasm');
    expect(make()).toEqual(want);
    await tf.setBackend('cpu');
  });
});
