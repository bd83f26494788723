import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { countKernels } from '../../src/engine/kernelCounter';
import { PolicyModel, parameterSpecs } from '../../src/engine/model';
import { makeModelConfig, parameterCount, validateModelConfig } from '../../src/engine/modelConfig';
import { decodeWeights, encodeWeights } from '../../src/engine/weights';

const config = makeModelConfig('tiny', { vocabSize: 19, contextTokens: 24, width: 16, heads: 4, layers: 2, mlp: 24 });

describe('PolicyModel', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });

  it('maps tokens [B, T] to logits [B, T, V] and checks the context length', () => {
    const m = new PolicyModel(config, 1, 'shape');
    try {
      const logits = tf.tidy(() => m.forward(tf.zeros([3, 10], 'int32') as tf.Tensor2D));
      expect(logits.shape).toEqual([3, 10, 19]);
      logits.dispose();
      expect(() => m.forward(tf.zeros([1, 25], 'int32') as tf.Tensor2D)).toThrow(
        /sequence length 25 exceeds contextTokens 24/,
      );
    } finally {
      m.dispose();
    }
  });

  it('initialises deterministically from its seed (and differently for another seed)', () => {
    const a = new PolicyModel(config, 42, 'a');
    const b = new PolicyModel(config, 42, 'b');
    const c = new PolicyModel(config, 43, 'c');
    try {
      const wa = a.getWeightsSync();
      const wb = b.getWeightsSync();
      const wc = c.getWeightsSync();
      expect(wa.map((r) => r.name)).toEqual(wb.map((r) => r.name));
      wa.forEach((r, i) => expect(Array.from(r.data)).toEqual(Array.from((wb[i] as typeof r).data)));
      expect(Array.from((wa[0] as (typeof wa)[0]).data)).not.toEqual(Array.from((wc[0] as (typeof wc)[0]).data));
      // init statistics: token embedding std ≈ 0.02, LN gains 1, biases 0
      const emb = (wa[0] as (typeof wa)[0]).data;
      const std = Math.sqrt(emb.reduce((s, v) => s + v * v, 0) / emb.length);
      expect(std).toBeGreaterThan(0.016);
      expect(std).toBeLessThan(0.024);
      expect(Array.from(a.variable('h0/ln1/g').dataSync())).toEqual(new Array(16).fill(1));
      expect(Array.from(a.variable('head/b').dataSync())).toEqual(new Array(19).fill(0));
    } finally {
      a.dispose();
      b.dispose();
      c.dispose();
    }
  });

  it('gives every instance its own engine-global variable names and frees them on dispose', () => {
    const before = tf.memory().numTensors;
    const a = new PolicyModel(config, 1, 'same');
    const b = new PolicyModel(config, 1, 'same');
    expect(a.scope).not.toBe(b.scope);
    expect(a.trainableVariables.length).toBe(parameterSpecs(config).length);
    expect(a.trainableVariables.reduce((s, v) => s + v.size, 0)).toBe(parameterCount(config));
    a.dispose();
    b.dispose();
    expect(tf.memory().numTensors).toBe(before);
    expect(() => a.forward(tf.zeros([1, 2], 'int32') as tf.Tensor2D)).toThrow(/disposed/);
  });

  it('round-trips weights through records, weight specs and copyWeightsFrom', () => {
    const a = new PolicyModel(config, 5, 'src');
    const b = new PolicyModel(config, 6, 'dst');
    const c = new PolicyModel(config, 7, 'copy');
    try {
      const { specs, data } = encodeWeights(a.getWeightsSync());
      b.setWeights(decodeWeights(specs, data));
      // tf.io reads the same layout
      const named = tf.io.decodeWeights(data, specs);
      expect(Array.from((named['h1/mlp/fc/w'] as tf.Tensor).dataSync())).toEqual(
        Array.from(a.variable('h1/mlp/fc/w').dataSync()),
      );
      tf.dispose(Object.values(named));
      c.copyWeightsFrom(a);
      const x = tf.tensor2d([[1, 4, 2, 9, 3]], [1, 5], 'int32');
      const la = tf.tidy(() => a.forward(x)).dataSync();
      expect(Array.from(tf.tidy(() => b.forward(x)).dataSync())).toEqual(Array.from(la));
      expect(Array.from(tf.tidy(() => c.forward(x)).dataSync())).toEqual(Array.from(la));
      x.dispose();
    } finally {
      a.dispose();
      b.dispose();
      c.dispose();
    }
  });

  it('reads its weights in one read-back, and a frozen model only once until its weights are set', async () => {
    const m = new PolicyModel(config, 4, 'reads');
    const other = new PolicyModel(config, 5, 'reads_other');
    try {
      const sync = m.getWeightsSync();
      const once = await countKernels(() => m.getWeights());
      expect(once.kernels.readbacks).toBe(1);
      expect(once.result).toEqual(sync);
      m.freeze();
      await m.getWeights();
      const again = await countKernels(() => m.getWeights());
      expect(again.kernels.readbacks).toBe(0);
      expect(again.result).toEqual(sync);
      m.copyWeightsFrom(other); // a frozen model's weights may still be replaced: the host copy follows
      const after = await countKernels(() => m.getWeights());
      expect(after.kernels.readbacks).toBe(1);
      expect(after.result).toEqual(other.getWeightsSync());
    } finally {
      m.dispose();
      other.dispose();
    }
  });

  it('rejects weights with a missing, extra or mis-shaped parameter, naming it', () => {
    const a = new PolicyModel(config, 5, 'strict');
    try {
      const w = a.getWeightsSync();
      expect(() => a.setWeights(w.slice(1))).toThrow(/weight 'tok_emb' is missing/);
      expect(() => a.setWeights([...w, { name: 'h9/x', shape: [1], data: new Float32Array(1) }])).toThrow(
        /unexpected weight 'h9\/x'/,
      );
      const bad = w.map((r) => (r.name === 'ln_f/g' ? { ...r, shape: [8, 2] } : r));
      expect(() => a.setWeights(bad)).toThrow(/'ln_f\/g' has shape \[8, 2\], expected \[16\]/);
    } finally {
      a.dispose();
    }
  });

  it('validates configs, naming unknown keys and bad fields', () => {
    expect(() => validateModelConfig({ ...config, depth: 3 })).toThrow(/unknown key 'depth'/);
    expect(() => validateModelConfig({ ...config, heads: 3 })).toThrow(
      /width \(16\) must be divisible by model.heads \(3\)/,
    );
    expect(() => validateModelConfig({ ...config, layers: 0 })).toThrow(/model.layers must be a positive integer/);
  });

  it('is causal: logits at position t do not depend on later tokens', () => {
    const m = new PolicyModel(config, 3, 'causal');
    try {
      const a = tf
        .tidy(() => m.forward(tf.tensor2d([[1, 2, 3, 4, 5, 6]], [1, 6], 'int32')))
        .arraySync()[0] as number[][];
      const b = tf
        .tidy(() => m.forward(tf.tensor2d([[1, 2, 3, 9, 9, 9]], [1, 6], 'int32')))
        .arraySync()[0] as number[][];
      expect(a.slice(0, 3)).toEqual(b.slice(0, 3));
      expect(a[3]).not.toEqual(b[3]);
    } finally {
      m.dispose();
    }
  });

  it('tied head uses the token embedding: no head/w parameter', () => {
    const m = new PolicyModel({ ...config, tiedHead: true }, 1, 'tied');
    const u = new PolicyModel({ ...config, tiedHead: false }, 1, 'untied');
    try {
      expect(m.parameterKeys).not.toContain('head/w');
      expect(u.parameterKeys).toContain('head/w');
    } finally {
      m.dispose();
      u.dispose();
    }
  });
  it('keeps tf.memory().numTensors flat across training steps, and the loss goes down', () => {
    const m = new PolicyModel(config, 2, 'train');
    const opt = tf.train.adam(1e-2, 0.9, 0.999, 1e-8);
    const x = tf.tensor2d([[1, 5, 2, 7, 3, 8]], [1, 6], 'int32');
    const y = tf.tensor2d([[5, 2, 7, 3, 8, 4]], [1, 6], 'int32');
    const step = (): number => {
      const loss = opt.minimize(
        () => tf.losses.softmaxCrossEntropy(tf.oneHot(y, config.vocabSize), m.forward(x)) as tf.Scalar,
        true,
        m.trainableVariables,
      ) as tf.Scalar;
      const v = loss.dataSync()[0] as number;
      loss.dispose();
      return v;
    };
    try {
      const first = step();
      const before = tf.memory().numTensors;
      let last = first;
      for (let k = 0; k < 20; k++) last = step();
      expect(tf.memory().numTensors).toBe(before);
      expect(last).toBeLessThan(first * 0.5);
    } finally {
      tf.dispose([x, y]);
      opt.dispose();
      m.dispose();
    }
  });

  it('assigns parameters on the device by key, refuses a wrong shape by name, and drops a frozen host copy', async () => {
    const m = new PolicyModel(config, 5, 'assign');
    const ones = tf.ones([config.width]);
    const wrong = tf.ones([config.width + 1]);
    try {
      m.freeze();
      await m.getWeights();
      m.assignParameters(new Map([['ln_f/b', ones]]));
      const after = (await m.getWeights()).find((r) => r.name === 'ln_f/b')!;
      expect(Array.from(after.data)).toEqual(new Array(config.width).fill(1));
      expect(() => m.assignParameters(new Map([['ln_f/b', wrong]]))).toThrow(
        /assign.assignParameters: 'ln_f\/b' is \[16\], got \[17\]/,
      );
      expect(() => m.assignParameters(new Map([['nope', ones]]))).toThrow(/no parameter 'nope'/);
    } finally {
      tf.dispose([ones, wrong]);
      m.dispose();
    }
  });
});
