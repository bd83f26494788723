// The policy: a causal transformer LM (token + position embeddings, pre-LN blocks with fused-QKV multi-head
// attention and a GELU MLP, final LN, tied or separate head). Teacher and student share this class.
// Embedding lookups are one-hot matMuls so they have a gradient on every backend (wasm has no gather gradient);
// only `slice` is used for sub-ranges (stridedSlice has no gradient).
import * as tf from '@tensorflow/tfjs';
import { embed, gelu, layerNorm, linear, MASKED, matMul } from './layers';
import { validateModelConfig, type ModelConfig } from './modelConfig';
import { SeededRandom } from './sampling';
import { readFloat32Batch } from './hostTensor';
import { checkWeightRecords, type WeightRecord } from './weights';
import { packRows, packsPadding, rowPacking, unpackRows, type RowPacking } from './rowPacking';

export type { ModelConfig } from './modelConfig';

/** Parameters of one block, in [in, out] layout. */
export interface BlockParams {
  ln1g: tf.Variable<tf.Rank.R1>;
  ln1b: tf.Variable<tf.Rank.R1>;
  /** [width, 3·width]: columns are q heads, then k heads, then v heads, each head `width/heads` wide */
  qkvW: tf.Variable<tf.Rank.R2>;
  qkvB: tf.Variable<tf.Rank.R1>;
  projW: tf.Variable<tf.Rank.R2>;
  projB: tf.Variable<tf.Rank.R1>;
  ln2g: tf.Variable<tf.Rank.R1>;
  ln2b: tf.Variable<tf.Rank.R1>;
  fcW: tf.Variable<tf.Rank.R2>;
  fcB: tf.Variable<tf.Rank.R1>;
  outW: tf.Variable<tf.Rank.R2>;
  outB: tf.Variable<tf.Rank.R1>;
}

interface ParamSpec {
  key: string;
  shape: number[];
  init: 'normal' | 'zeros' | 'ones';
  std?: number;
}

/** Names (instance-independent keys), shapes and initialisation of every parameter, in a fixed order. */
export function parameterSpecs(c: ModelConfig): ParamSpec[] {
  const specs: ParamSpec[] = [
    { key: 'tok_emb', shape: [c.vocabSize, c.width], init: 'normal', std: 0.02 },
    { key: 'pos_emb', shape: [c.contextTokens, c.width], init: 'normal', std: 0.01 },
  ];
  const residualStd = 0.02 / Math.sqrt(2 * c.layers);
  for (let l = 0; l < c.layers; l++) {
    const p = `h${l}/`;
    specs.push(
      { key: p + 'ln1/g', shape: [c.width], init: 'ones' },
      { key: p + 'ln1/b', shape: [c.width], init: 'zeros' },
      { key: p + 'attn/qkv/w', shape: [c.width, 3 * c.width], init: 'normal', std: 0.02 },
      { key: p + 'attn/qkv/b', shape: [3 * c.width], init: 'zeros' },
      { key: p + 'attn/proj/w', shape: [c.width, c.width], init: 'normal', std: residualStd },
      { key: p + 'attn/proj/b', shape: [c.width], init: 'zeros' },
      { key: p + 'ln2/g', shape: [c.width], init: 'ones' },
      { key: p + 'ln2/b', shape: [c.width], init: 'zeros' },
      { key: p + 'mlp/fc/w', shape: [c.width, c.mlp], init: 'normal', std: 0.02 },
      { key: p + 'mlp/fc/b', shape: [c.mlp], init: 'zeros' },
      { key: p + 'mlp/out/w', shape: [c.mlp, c.width], init: 'normal', std: residualStd },
      { key: p + 'mlp/out/b', shape: [c.width], init: 'zeros' },
    );
  }
  specs.push({ key: 'ln_f/g', shape: [c.width], init: 'ones' }, { key: 'ln_f/b', shape: [c.width], init: 'zeros' });
  if (!c.tiedHead) specs.push({ key: 'head/w', shape: [c.width, c.vocabSize], init: 'normal', std: 0.02 });
  specs.push({ key: 'head/b', shape: [c.vocabSize], init: 'zeros' });
  return specs;
}

/** [n, n] additive causal mask: 0 on and below the diagonal, MASKED above (the caller owns it) */
export function causalMask(n: number): tf.Tensor2D {
  const mask = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) mask[i * n + j] = MASKED;
  return tf.tensor2d(mask, [n, n]);
}

let instanceCounter = 0;

export class PolicyModel {
  readonly config: ModelConfig;
  readonly name: string;
  /** engine-global prefix of this instance's variable names */
  readonly scope: string;
  readonly tokEmb: tf.Variable<tf.Rank.R2>;
  readonly posEmb: tf.Variable<tf.Rank.R2>;
  readonly blocks: BlockParams[] = [];
  readonly lnfG: tf.Variable<tf.Rank.R1>;
  readonly lnfB: tf.Variable<tf.Rank.R1>;
  /** [width, vocab]; null when tied (the head is tok_emb transposed) */
  readonly headW: tf.Variable<tf.Rank.R2> | null;
  readonly headB: tf.Variable<tf.Rank.R1>;
  /** [contextTokens, contextTokens] additive causal mask (0 on and below the diagonal, MASKED above) */
  private readonly causalMask: tf.Tensor2D;
  private readonly byKey = new Map<string, tf.Variable>();
  private disposed = false;
  /** see freeze() */
  private frozen = false;
  private frozenWeights: WeightRecord[] | null = null;

  constructor(config: ModelConfig, seed: number, name = 'policy') {
    this.config = validateModelConfig(config);
    this.name = name;
    this.scope = `${name}_${instanceCounter++}`;
    const rng = new SeededRandom(seed);
    const c = this.config;
    for (const spec of parameterSpecs(c)) {
      const size = spec.shape.reduce((a, b) => a * b, 1);
      const data = new Float32Array(size);
      if (spec.init === 'ones') data.fill(1);
      else if (spec.init === 'normal') for (let i = 0; i < size; i++) data[i] = (spec.std ?? 0.02) * rng.normal();
      const t = tf.tensor(data, spec.shape, 'float32');
      this.byKey.set(spec.key, tf.variable(t, true, `${this.scope}/${spec.key}`));
      t.dispose();
    }
    const v = <R extends tf.Rank>(k: string): tf.Variable<R> => this.byKey.get(k) as tf.Variable<R>;
    this.tokEmb = v('tok_emb');
    this.posEmb = v('pos_emb');
    for (let l = 0; l < c.layers; l++) {
      const p = `h${l}/`;
      this.blocks.push({
        ln1g: v(p + 'ln1/g'),
        ln1b: v(p + 'ln1/b'),
        qkvW: v(p + 'attn/qkv/w'),
        qkvB: v(p + 'attn/qkv/b'),
        projW: v(p + 'attn/proj/w'),
        projB: v(p + 'attn/proj/b'),
        ln2g: v(p + 'ln2/g'),
        ln2b: v(p + 'ln2/b'),
        fcW: v(p + 'mlp/fc/w'),
        fcB: v(p + 'mlp/fc/b'),
        outW: v(p + 'mlp/out/w'),
        outB: v(p + 'mlp/out/b'),
      });
    }
    this.lnfG = v('ln_f/g');
    this.lnfB = v('ln_f/b');
    this.headW = c.tiedHead ? null : v('head/w');
    this.headB = v('head/b');
    this.causalMask = causalMask(c.contextTokens);
  }

  /** all parameters in a fixed order (the order of getWeights) */
  get trainableVariables(): tf.Variable[] {
    return [...this.byKey.values()];
  }

  /** the variable behind an instance-independent key such as 'h0/attn/qkv/w' */
  variable(key: string): tf.Variable {
    const v = this.byKey.get(key);
    if (v === undefined) throw new Error(`${this.name}: no parameter '${key}'`);
    return v;
  }

  /** keys of the parameters, in order */
  get parameterKeys(): string[] {
    return [...this.byKey.keys()];
  }

  /**
   * Full causal forward pass. tokens [B, T] int32 (T ≤ contextTokens) → logits [B, T, V]; position t predicts
   * token t+1. Differentiable w.r.t. every parameter on every backend.
   *
   * `lengths` (host, [B]): row b's real tokens are its first lengths[b], the rest padding. Given, on wasm, the
   * per-token work (embeddings, norms, projections, MLPs, head) runs on the real tokens only (rowPacking.ts), and
   * the logits at padded positions are 0. Outputs at real positions, and every gradient when the loss ignores
   * padded positions, are the same bits as without it.
   */
  forward(tokens: tf.Tensor2D, lengths?: ArrayLike<number>): tf.Tensor3D {
    this.assertLive();
    const [B, T] = tokens.shape;
    const c = this.config;
    if (T > c.contextTokens)
      throw new Error(`${this.name}.forward: sequence length ${T} exceeds contextTokens ${c.contextTokens}`);
    return tf.tidy(() => {
      const rows = lengths === undefined || !packsPadding() ? null : rowPacking(lengths, B, T);
      const pos = tf.slice(this.posEmb, [0, 0], [T, c.width]); // [T, D]
      const mask = tf.slice(this.causalMask, [0, 0], [T, T]); // [T, T]
      if (rows === null) {
        const tok = tf.reshape(embed(tf.reshape(tokens, [B * T]) as tf.Tensor1D, this.tokEmb), [B, T, c.width]);
        let x = tf.reshape(tf.add(tok, pos), [B * T, c.width]) as tf.Tensor2D; // residual stream [B·T, D]
        for (const blk of this.blocks) x = this.block(x, blk, B, T, mask, null);
        return tf.reshape(this.head(x), [B, T, c.vocabSize]) as tf.Tensor3D;
      }
      // residual stream of the real tokens [N, D]. The position rows come from a broadcasting add, as in the
      // padded sum, so pos_emb's gradient is the same kernel's sum over the batch.
      const ids = tf.gather(tf.reshape(tokens, [B * T]), rows.packIndex) as tf.Tensor1D; // [N]
      const posAll = tf.reshape(tf.add(tf.zeros([B, T, c.width]), pos), [B * T, c.width]) as tf.Tensor2D;
      const posRows = packRows(posAll, rows); // [N, D]
      let x = tf.add(embed(ids, this.tokEmb), posRows) as tf.Tensor2D;
      for (const blk of this.blocks) x = this.block(x, blk, B, T, mask, rows);
      return tf.reshape(unpackRows(this.head(x), rows), [B, T, c.vocabSize]) as tf.Tensor3D;
    });
  }

  /** decode-time input embeddings: tokens, positions [N] int32 → token + position rows [N, D] (gathers, no gradient) */
  embed(tokens: tf.Tensor1D, positions: tf.Tensor1D): tf.Tensor2D {
    return tf.tidy(() => tf.add(tf.gather(this.tokEmb, tokens), tf.gather(this.posEmb, positions)) as tf.Tensor2D);
  }

  /** final LN and output head: x [rows, D] → logits [rows, V] */
  head(x: tf.Tensor2D): tf.Tensor2D {
    const h = layerNorm(x, this.lnfG, this.lnfB);
    if (this.headW !== null) return linear(h, this.headW, this.headB);
    return tf.add(matMul(h, this.tokEmb, false, true), this.headB);
  }

  /** the MLP half of a block including its residual add: x [rows, D] → [rows, D] */
  mlp(x: tf.Tensor2D, blk: BlockParams): tf.Tensor2D {
    const h = layerNorm(x, blk.ln2g, blk.ln2b);
    return tf.add(x, linear(gelu(linear(h, blk.fcW, blk.fcB)), blk.outW, blk.outB));
  }

  /**
   * Splits the fused QKV projection of x [B·T, D] into per-head q, k, v, each [B, H, T, dh], with q already
   * scaled by 1/√dh. With `rows`, x holds only the real rows [N, D] and the padded positions' q, k, v are 0.
   */
  qkv(
    x: tf.Tensor2D,
    blk: BlockParams,
    B: number,
    T: number,
    rows: RowPacking | null = null,
  ): [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D] {
    const { width, heads } = this.config;
    const dh = width / heads;
    const h = layerNorm(x, blk.ln1g, blk.ln1b);
    const proj = linear(h, blk.qkvW, blk.qkvB); // [B·T or N, 3D]
    const padded = rows === null ? proj : unpackRows(proj, rows); // [B·T, 3D]
    const qkv = tf.transpose(tf.reshape(padded, [B, T, 3 * heads, dh]), [0, 2, 1, 3]); // [B, 3H, T, dh]
    const [q, k, v] = tf.split(qkv, 3, 1) as [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D];
    return [tf.mul(q, 1 / Math.sqrt(dh)), k, v];
  }

  /**
   * attention output projection + residual: y [B, H, T, dh] → x + proj(y) as [B·T, D] (with `rows`, on the real
   * rows only: x and the result [N, D])
   */
  attnOut(
    x: tf.Tensor2D,
    y: tf.Tensor4D,
    blk: BlockParams,
    B: number,
    T: number,
    rows: RowPacking | null = null,
  ): tf.Tensor2D {
    const merged = tf.reshape(tf.transpose(y, [0, 2, 1, 3]), [B * T, this.config.width]) as tf.Tensor2D;
    return tf.add(x, linear(rows === null ? merged : packRows(merged, rows), blk.projW, blk.projB));
  }

  /** one block: x [B·T, D] → [B·T, D], or the real rows [N, D] → [N, D] with attention in the padded layout */
  private block(
    x: tf.Tensor2D,
    blk: BlockParams,
    B: number,
    T: number,
    mask: tf.Tensor2D,
    rows: RowPacking | null,
  ): tf.Tensor2D {
    const [q, k, v] = this.qkv(x, blk, B, T, rows);
    const att = tf.softmax(tf.add(matMul(q, k, false, true), mask)); // [B, H, T, T]
    const y = matMul(att, v) as tf.Tensor4D; // [B, H, T, dh]
    return this.mlp(this.attnOut(x, y, blk, B, T, rows), blk);
  }

  /**
   * parameters as host records {name: key, shape, data} (checkpointable; see weights.ts), in ONE read-back of all
   * of them; a frozen model (freeze()) is read once and answered from that host copy afterwards
   */
  async getWeights(): Promise<WeightRecord[]> {
    this.assertLive();
    if (this.frozenWeights === null) {
      const entries = [...this.byKey];
      const data = await readFloat32Batch(entries.map(([, v]) => v));
      const records = entries.map(([key, v], i) => ({
        name: key,
        shape: v.shape.slice(),
        data: data[i] as Float32Array,
      }));
      if (!this.frozen) return records;
      this.frozenWeights = records;
    }
    return this.frozenWeights.map((r) => ({ name: r.name, shape: r.shape.slice(), data: r.data.slice() }));
  }

  /**
   * Declares that no optimizer updates this model any more (a trained teacher, the reference policy): getWeights
   * then reads the device once and keeps the host copy. setWeights and copyWeightsFrom drop that copy.
   */
  freeze(): void {
    this.frozen = true;
  }

  /** synchronous variant of getWeights (slow on webgpu: prefer getWeights there) */
  getWeightsSync(): WeightRecord[] {
    this.assertLive();
    return [...this.byKey].map(([key, v]) => ({
      name: key,
      shape: v.shape.slice(),
      data: new Float32Array(v.dataSync<'float32'>()),
    }));
  }

  /** loads records produced by getWeights (same config); throws naming a missing/extra/mis-shaped parameter */
  setWeights(records: readonly WeightRecord[]): void {
    this.assertLive();
    checkWeightRecords(parameterSpecs(this.config), records, this.name);
    for (const r of records) {
      const v = this.byKey.get(r.name) as tf.Variable;
      tf.tidy(() => v.assign(tf.tensor(r.data, r.shape, 'float32')));
    }
    this.frozenWeights = null;
  }

  /** copies every parameter from a model of the same config, on the device (no host round trip) */
  copyWeightsFrom(other: PolicyModel): void {
    this.assertLive();
    const a = JSON.stringify(this.config);
    const b = JSON.stringify(other.config);
    if (a !== b) throw new Error(`${this.name}.copyWeightsFrom(${other.name}): configs differ: ${a} vs ${b}`);
    for (const [key, v] of this.byKey) v.assign(other.variable(key));
    this.frozenWeights = null;
  }

  /**
   * Assigns device tensors to parameters by key, on the device (shapes as the parameters'; the caller keeps the
   * tensors); drops a frozen model's host copy, as setWeights does.
   */
  assignParameters(values: ReadonlyMap<string, tf.Tensor>): void {
    this.assertLive();
    for (const [key, t] of values) {
      const v = this.variable(key);
      if (!tf.util.arraysEqual(v.shape, t.shape))
        throw new Error(`${this.name}.assignParameters: '${key}' is [${v.shape}], got [${t.shape}]`);
      v.assign(t);
    }
    this.frozenWeights = null;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const v of this.byKey.values()) v.dispose();
    this.causalMask.dispose();
  }

  private assertLive(): void {
    if (this.disposed) throw new Error(`${this.name} (${this.scope}) is disposed`);
  }
}
