import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../../src/engine/backend';
import { countKernels } from '../../src/engine/kernelCounter';
import { KVCache } from '../../src/engine/kvCache';
import { PolicyModel } from '../../src/engine/model';
import { makeModelConfig } from '../../src/engine/modelConfig';
import { SeededRandom } from '../../src/engine/sampling';
import { BackendOrSkip } from './helpers/webgpuOrSkip';

const config = makeModelConfig('tiny', { vocabSize: 23, contextTokens: 40, width: 24, heads: 3, layers: 2, mlp: 40 });

/** full-forward logits [B, T, V] as a host array */
function fullLogits(model: PolicyModel, seqs: number[][], T: number): Float32Array {
  const flat = new Int32Array(seqs.length * T);
  seqs.forEach((s, b) => s.forEach((t, j) => (flat[b * T + j] = t)));
  return tf.tidy(() => model.forward(tf.tensor2d(flat, [seqs.length, T], 'int32'))).dataSync() as Float32Array;
}

/**
 * One append of a chunk schedule: row b gets min(plan[b], what it has left) of its next tokens. Returns the counts
 * fed and the logits [B, V] at each row's last fed token, as a host array.
 */
function feed(
  cache: KVCache,
  plan: readonly number[],
  seqs: readonly (readonly number[])[],
  fed: Int32Array,
): { counts: Int32Array; logits: Float32Array } {
  const B = seqs.length;
  const counts = Int32Array.from(plan, (n, b) => Math.min(n, (seqs[b] as number[]).length - (fed[b] as number)));
  const C = Math.max(1, ...counts);
  const toks = new Int32Array(B * C);
  for (let b = 0; b < B; b++)
    for (let j = 0; j < (counts[b] as number); j++)
      toks[b * C + j] = (seqs[b] as number[])[(fed[b] as number) + j] as number;
  const out = cache.append(toks, counts, C);
  const logits = out.dataSync() as Float32Array;
  out.dispose();
  return { counts, logits };
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs((a[i] as number) - (b[i] as number)));
  return m;
}

describe.each(['cpu', 'wasm'] as const)('KVCache on %s', (backend) => {
  let model: PolicyModel;
  beforeAll(async () => {
    await initBackend(backend);
    model = new PolicyModel(config, 7, 'kv');
    // sharper logits than the 0.02 init so a wrong position or mask shows up well above 1e-5
    model.setWeights(
      model.getWeightsSync().map((r) => ({ ...r, data: r.name.endsWith('/g') ? r.data : r.data.map((v) => v * 25) })),
    );
  });
  afterAll(() => model.dispose());

  it('gives the logits of a full forward pass (1e-5) for rows of different lengths fed in uneven chunks', () => {
    const rng = new SeededRandom(3);
    const B = 4;
    const lens = [31, 17, 25, 9];
    const seqs = lens.map((n) => Array.from({ length: n }, () => rng.nextUint32() % config.vocabSize));
    const T = Math.max(...lens);
    const ref = fullLogits(
      model,
      seqs.map((s) => [...s, ...new Array(T - s.length).fill(0)]),
      T,
    );
    const cache = new KVCache(model, B, 32);
    const before = tf.memory().numTensors;
    const fed = new Int32Array(B);
    // chunk schedule: prefill of different sizes per row, then single tokens and occasional multi-token chunks
    const schedule = [
      [5, 3, 7, 2],
      [1, 1, 1, 1],
      [4, 0, 6, 1],
      [1, 1, 1, 1],
      [3, 5, 0, 2],
      [1, 1, 1, 1],
    ];
    let worst = 0;
    let checked = 0;
    let step = 0;
    while (fed.some((f, b) => f < (lens[b] as number))) {
      const { counts, logits: got } = feed(cache, schedule[step % schedule.length] as number[], seqs, fed);
      step++;
      for (let b = 0; b < B; b++) {
        const n = counts[b] as number;
        if (n === 0) continue;
        const pos = (fed[b] as number) + n - 1;
        const V = config.vocabSize;
        const want = ref.subarray((b * T + pos) * V, (b * T + pos + 1) * V);
        worst = Math.max(worst, maxAbsDiff(got.subarray(b * V, (b + 1) * V), want));
        checked++;
        fed[b] = (fed[b] as number) + n;
      }
      expect(Array.from(cache.lengths)).toEqual(Array.from(fed));
    }
    expect(checked).toBeGreaterThan(20);
    expect(worst).toBeLessThan(1e-5);
    expect(tf.memory().numTensors).toBe(before);
    cache.dispose();
  });

  it('keeps only the rows asked for: their next logits are the same bits as without the others', () => {
    const rng = new SeededRandom(5);
    const B = 4;
    const prompt = Array.from({ length: B * 6 }, () => rng.nextUint32() % config.vocabSize);
    const next = Array.from({ length: B * 2 }, () => rng.nextUint32() % config.vocabSize);
    const run = (keep: number[] | null): Float32Array[] => {
      const cache = new KVCache(model, B, 16);
      const before = tf.memory().numTensors;
      // rows hold 6, 4, 5 and 3 prompt tokens
      const counts = [6, 4, 5, 3];
      cache.append(Int32Array.from(prompt), Int32Array.from(counts), 6).dispose();
      let rows = [0, 1, 2, 3];
      if (keep) {
        cache.keepRows(keep);
        rows = keep;
        expect(cache.batch).toBe(keep.length);
        expect(Array.from(cache.lengths)).toEqual(keep.map((r) => counts[r]));
      }
      // two single-token steps: per kept row, its logits
      const out: Float32Array[] = rows.map(() => new Float32Array(0));
      for (let s = 0; s < 2; s++) {
        const toks = Int32Array.from(rows, (r) => next[s * B + r] as number);
        const logits = cache.append(toks, new Int32Array(rows.length).fill(1), 1);
        const data = logits.dataSync() as Float32Array;
        logits.dispose();
        const V = config.vocabSize;
        rows.forEach((_, i) => (out[i] = Float32Array.from([...out[i]!, ...data.subarray(i * V, (i + 1) * V)])));
      }
      cache.dispose();
      expect(tf.memory().numTensors).toBe(before - 2 * config.layers); // its keys and values
      return out;
    };
    const all = run(null);
    const kept = run([3, 1]);
    expect(Array.from(kept[0]!)).toEqual(Array.from(all[3]!));
    expect(Array.from(kept[1]!)).toEqual(Array.from(all[1]!));
    const cache = new KVCache(model, 2, 4);
    expect(() => cache.keepRows([])).toThrow(/keep at least one row/);
    expect(() => cache.keepRows([2])).toThrow(/row 2 is outside \[0, 2\)/);
    cache.dispose();
  });

  it.runIf(backend === 'wasm')(
    'keeps only the filled slots on wasm, and its logits are the same bits as the full-capacity cache',
    () => {
      // a capacity past the reference matMul's 48-slot block and prefill chunks of ≥ 12 tokens (the XNNPACK route)
      const wide = new PolicyModel({ ...config, contextTokens: 64 }, 11, 'kv-wide');
      wide.setWeights(
        wide.getWeightsSync().map((r) => ({ ...r, data: r.name.endsWith('/g') ? r.data : r.data.map((v) => v * 25) })),
      );
      const rng = new SeededRandom(9);
      const B = 3;
      const lengths = [55, 20, 41];
      const sequences = lengths.map((n) => Array.from({ length: n }, () => rng.nextUint32() % config.vocabSize));
      const schedule = [
        [14, 3, 12],
        [1, 1, 1],
        [7, 0, 13],
        [1, 1, 0],
      ];
      const run = (trim: boolean): number[] => {
        const cache = new KVCache(wide, B, 60, trim);
        const before = tf.memory().numTensors;
        let fed = new Int32Array(B);
        let seqs = sequences.slice();
        const out: number[] = [];
        for (let step = 0; fed.some((f, b) => f < (seqs[b] as number[]).length); step++) {
          const { counts, logits: data } = feed(cache, schedule[step % schedule.length] as number[], seqs, fed);
          counts.forEach((n, b) => {
            if (n > 0) out.push(...data.subarray(b * config.vocabSize, (b + 1) * config.vocabSize));
            fed[b] = (fed[b] as number) + n;
          });
          if (step === 5) {
            // rows in a new order: cache row i is the old row order[i]
            const order = [2, 0, 1];
            cache.keepRows(order);
            fed = Int32Array.from(order, (r) => fed[r] as number);
            seqs = order.map((r) => seqs[r] as number[]);
          }
        }
        expect(tf.memory().numTensors).toBe(before);
        cache.dispose();
        return out;
      };
      const full = run(false);
      const trimmed = run(true);
      expect(trimmed.length).toBe(full.length);
      expect(trimmed.length).toBeGreaterThan(25 * config.vocabSize);
      // bit for bit: toEqual on numbers tells −0 from +0 and NaN from anything
      expect(trimmed).toEqual(full);
      wide.dispose();
    },
  );

  it.runIf(backend === 'cpu')('refuses a trimmed cache where the wasm write kernel is not the backend', () => {
    expect(() => new KVCache(model, 2, 4, true)).toThrow(/needs the wasm backend's RetireKVWrite kernel/);
  });

  it('rejects a row that would overflow its capacity, naming the row', () => {
    const cache = new KVCache(model, 2, 4);
    expect(() => cache.append(new Int32Array([1, 2, 3, 4, 5, 0, 0, 0, 0, 0]), new Int32Array([5, 0]), 5)).toThrow(
      /row 0 would hold 5 tokens, capacity is 4/,
    );
    cache.dispose();
  });
});

// webgpu (SwiftShader in Node): reads are asynchronous there, and the device-built decode step (appendOnDevice,
// whose input comes from the packed sampling state of src/engine/kernels/webgpuSampling.ts) must feed exactly what
// the host-built append feeds. Skipped, with the reason printed, where no WebGPU adapter exists.
describe('KVCache on webgpu', () => {
  let model: PolicyModel | null = null;
  const gpu = new BackendOrSkip();
  beforeAll(async () => {
    if (!(await gpu.init('webgpu'))) return;
    model = new PolicyModel(config, 7, 'kv_gpu');
    model.setWeights(
      model.getWeightsSync().map((r) => ({ ...r, data: r.name.endsWith('/g') ? r.data : r.data.map((v) => v * 25) })),
    );
  }, 120_000);
  afterAll(() => model?.dispose());

  const read = async (t: tf.Tensor): Promise<Float32Array> => {
    try {
      return (await t.data()) as Float32Array;
    } finally {
      t.dispose();
    }
  };

  it('feeds a device-built step like the host-built one (1e-5) in 16 fused programs: sampling rows their token, the others nothing', async (ctx) => {
    gpu.skipIfMissing(ctx);
    if (model === null) throw new Error('the webgpu model was not built');
    const rng = new SeededRandom(9);
    const B = 4;
    const V = config.vocabSize;
    const prompt = [6, 3, 9, 1];
    const before = tf.memory().numTensors;
    const host = new KVCache(model, B, 24);
    const dev = new KVCache(model, B, 24);
    const C = Math.max(...prompt);
    const toks = Int32Array.from({ length: B * C }, () => rng.nextUint32() % V);
    await read(host.append(toks, Int32Array.from(prompt), C));
    await read(dev.append(toks, Int32Array.from(prompt), C));
    // two steps: rows 0, 2, 3 feed a token, then rows 1 and 2 do (row 1 after a step of nothing)
    for (const feeds of [
      [1, 0, 1, 1],
      [0, 1, 1, 0],
    ]) {
      const next = Int32Array.from({ length: B }, () => rng.nextUint32() % V);
      const state = new Float32Array(B * 8);
      for (let b = 0; b < B; b++) {
        state[b * 8] = feeds[b] ? (next[b] as number) : -1;
        state[b * 8 + 3] = feeds[b] as number;
        state[b * 8 + 6] = (host.lengths[b] as number) + (feeds[b] as number); // tokens written, the fed one included
      }
      const want = await read(host.append(next, Int32Array.from(feeds), 1));
      const stateT = tf.tensor2d(state, [B, 8]);
      const step = await countKernels(() => dev.appendOnDevice(stateT));
      // the fused decode step: embedding, 7 programs per layer, final LN + head
      expect(step.kernels.gpuPrograms).toBe(1 + 7 * config.layers + 1);
      const got = await read(step.result);
      stateT.dispose();
      dev.advanceLengths(Int32Array.from(feeds));
      for (let b = 0; b < B; b++)
        if (feeds[b])
          expect(maxAbsDiff(got.subarray(b * V, (b + 1) * V), want.subarray(b * V, (b + 1) * V))).toBeLessThan(1e-5);
      expect(Array.from(dev.lengths)).toEqual(Array.from(host.lengths));
    }
    // a host append after device steps sees the same cache
    const last = Int32Array.from({ length: B }, () => rng.nextUint32() % V);
    const a = await read(host.append(last, new Int32Array(B).fill(1), 1));
    const b = await read(dev.append(last, new Int32Array(B).fill(1), 1));
    expect(maxAbsDiff(a, b)).toBeLessThan(1e-5);
    host.dispose();
    dev.dispose();
    expect(tf.memory().numTensors).toBe(before);
  }, 120_000);
});
