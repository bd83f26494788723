// The batched member axis: K policies of one config, each with its own weights, as ONE set of variables with a
// leading member axis ([K, ...shape] for every parameter of model.ts), so a population's K members run one forward
// and one backward pass — each weight product one batched product over members — instead of K passes.
//
// Why: on a GPU a step of this lab's small policy is mostly per-kernel overhead; K members' kernels cost about what
// one member's do (docs/benchmarks.md, the member-axis table). On wasm the work grows with the rows and the axis saves
// nothing, so it is meant for webgpu; it runs on every backend, which is how it is tested against K PolicyModels.
//
// The members are independent: no product mixes two members' rows, so the gradient of the SUM of the members' losses
// with respect to a stacked variable is, member by member, that member's own gradient (memberAdam.ts relies on it).
// Attention has no weights: it runs with members and rows merged into one batch axis [K·B, …].
//
// Decoding: the same object is a kvCache.ts CacheModel. A cache of K·b rows, member-major (rows k·b … k·b + b − 1 are
// member k's), runs every member's decode step in one pass: the per-token methods below (embed, qkv, attnOut, mlp,
// head) take PolicyModel's flat layouts with the K·b rows and apply member k's weights to member k's rows. Rows stay
// in the cache when their episodes end (a member's rows cannot leave one by one and keep the layout).
//
// On webgpu a member decode samples on the device (deviceSampling.ts, one random stream per member): one read per
// turn for all members. A population's checkpoint reads every member's weights in one read (getMemberWeights).
// Not (yet) here: row packing (a wasm optimisation) and a fused WGSL layer norm for the member axis (its per-member
// gain and bias make it a composed op when stacked; GELU has no weights and takes the fused kernel as it is).
import * as tf from '@tensorflow/tfjs';
import { readFloat32Batch } from './hostTensor';
import { gelu, LAYER_NORM_EPSILON, matMul } from './layers';
import { causalMask, PolicyModel, parameterSpecs, type ModelConfig } from './model';
import type { WeightRecord } from './weights';

let instanceCounter = 0;

export class MemberModel {
  readonly config: ModelConfig;
  readonly members: number;
  readonly name: string;
  readonly scope: string;
  /** per layer, the key prefix of its parameters ('h0/', …): what a cache passes back as `blk` */
  readonly blocks: readonly string[];
  /** parameter key (model.ts's keys) → variable [K, ...that parameter's shape] */
  private readonly byKey = new Map<string, tf.Variable>();
  /** [contextTokens, contextTokens] additive causal mask */
  private readonly causalMask: tf.Tensor2D;
  private disposed = false;

  /** Stacks the weights of `models` (one config, at least one) on the device; member k is models[k]. */
  static fromModels(models: readonly PolicyModel[], name = 'members'): MemberModel {
    const first = models[0];
    if (first === undefined) throw new Error('MemberModel.fromModels: at least one member is needed');
    const config = JSON.stringify(first.config);
    models.forEach((m, k) => {
      if (JSON.stringify(m.config) !== config)
        throw new Error(`MemberModel.fromModels: member ${k} (${m.name}) has another model config than member 0`);
    });
    return new MemberModel(first.config, models, name);
  }

  private constructor(config: ModelConfig, models: readonly PolicyModel[], name: string) {
    this.config = config;
    this.members = models.length;
    this.name = name;
    this.scope = `${name}_${instanceCounter++}`;
    this.blocks = Array.from({ length: config.layers }, (_, l) => `h${l}/`);
    for (const spec of parameterSpecs(config)) {
      const stacked = tf.tidy(() => tf.stack(models.map((m) => m.variable(spec.key))));
      this.byKey.set(spec.key, tf.variable(stacked, true, `${this.scope}/${spec.key}`));
      stacked.dispose();
    }
    this.causalMask = causalMask(config.contextTokens);
  }

  /** every stacked parameter, in parameterSpecs order */
  get trainableVariables(): tf.Variable[] {
    return [...this.byKey.values()];
  }

  /** the stacked variable [K, ...] behind a key such as 'h0/attn/qkv/w' */
  variable(key: string): tf.Variable {
    const v = this.byKey.get(key);
    if (v === undefined) throw new Error(`${this.scope}: no parameter '${key}'`);
    return v;
  }

  /** Copies member k's weights into `model` (same config), on the device. */
  writeMember(k: number, model: PolicyModel): void {
    this.assertLive();
    if (!Number.isSafeInteger(k) || k < 0 || k >= this.members)
      throw new Error(`${this.scope}.writeMember: member ${k} is not in 0…${this.members - 1}`);
    if (JSON.stringify(model.config) !== JSON.stringify(this.config))
      throw new Error(`${this.scope}.writeMember: ${model.name} has another model config`);
    // member k of every parameter (a plain object, which tidy keeps; it would dispose tensors inside a Map)
    const slices = tf.tidy(() =>
      Object.fromEntries([...this.byKey].map(([key, v]) => [key, tf.reshape(tf.slice(v, k, 1), v.shape.slice(1))])),
    );
    try {
      model.assignParameters(new Map(Object.entries(slices)));
    } finally {
      tf.dispose(Object.values(slices));
    }
  }

  /**
   * Every member's parameters as host records — member k's are what `getWeights()` of a PolicyModel holding member
   * k's weights returns (model.ts's keys and shapes, so a checkpoint writer or `setWeights` takes them) — from ONE
   * read-back of all stacked variables: a population's checkpoint costs one GPU wait, not K.
   */
  async getMemberWeights(): Promise<WeightRecord[][]> {
    this.assertLive();
    const entries = [...this.byKey];
    const data = await readFloat32Batch(entries.map(([, v]) => v));
    return Array.from({ length: this.members }, (_, k) =>
      entries.map(([key, v], i) => {
        const per = v.size / this.members; // scalars of one member's slice [1, ...shape], contiguous
        return { name: key, shape: v.shape.slice(1), data: (data[i] as Float32Array).slice(k * per, (k + 1) * per) };
      }),
    );
  }

  /**
   * Causal forward pass of every member on its own rows: tokens [K, B, T] int32 → logits [K, B, T, V]; member k
   * reads tokens[k] with its own weights. Position t predicts token t+1, as PolicyModel.forward.
   */
  forward(tokens: tf.Tensor3D): tf.Tensor4D {
    this.assertLive();
    const [K, B, T] = tokens.shape;
    const c = this.config;
    if (K !== this.members)
      throw new Error(`${this.scope}.forward: tokens have ${K} members, the model ${this.members}`);
    if (T > c.contextTokens)
      throw new Error(`${this.scope}.forward: sequence length ${T} exceeds contextTokens ${c.contextTokens}`);
    const p = (key: string) => this.variable(key);
    return tf.tidy(() => {
      // token embeddings as a one-hot product per member: [K, B·T, V] · [K, V, D]
      const oneHot = tf.cast(tf.oneHot(tf.reshape(tokens, [K, B * T]), c.vocabSize), 'float32');
      const tok = tf.reshape(matMul(oneHot, p('tok_emb')), [K, B, T, c.width]);
      const pos = tf.reshape(tf.slice(p('pos_emb'), [0, 0, 0], [K, T, c.width]), [K, 1, T, c.width]);
      // residual stream [K·B·T, D], member-major
      let x = tf.reshape(tf.add(tok, pos), [K * B * T, c.width]) as tf.Tensor2D;
      const mask = tf.slice(this.causalMask, [0, 0], [T, T]); // [T, T]
      for (const blk of this.blocks) {
        // attention per sequence, members and rows as one batch axis: [K·B, H, T, dh]
        const [q, k, v] = this.qkv(x, blk, K * B, T);
        const att = tf.softmax(tf.add(matMul(q, k, false, true), mask)); // [K·B, H, T, T]
        x = this.mlp(this.attnOut(x, matMul(att, v) as tf.Tensor4D, blk, K * B, T), blk);
      }
      return tf.reshape(this.head(x), [K, B, T, c.vocabSize]) as tf.Tensor4D;
    });
  }

  /**
   * Input embeddings of N entries, member-major (entry i belongs to member ⌊i·K / N⌋): tokens, positions [N] int32
   * → [N, D], member k's entries from member k's tables. Gathers, as PolicyModel.embed (decode only: no gradient).
   */
  embed(tokens: tf.Tensor1D, positions: tf.Tensor1D): tf.Tensor2D {
    this.assertLive();
    const { vocabSize, contextTokens, width } = this.config;
    const K = this.members;
    const n = this.perMember(tokens.shape[0], 'embed');
    // row of entry i in the tables flattened over members: k·V + token, k·contextTokens + position
    const tokOffset = new Int32Array(K * n);
    const posOffset = new Int32Array(K * n);
    for (let k = 0; k < K; k++) {
      tokOffset.fill(k * vocabSize, k * n, (k + 1) * n);
      posOffset.fill(k * contextTokens, k * n, (k + 1) * n);
    }
    return tf.tidy(() => {
      const tokTable = tf.reshape(this.variable('tok_emb'), [K * vocabSize, width]);
      const posTable = tf.reshape(this.variable('pos_emb'), [K * contextTokens, width]);
      const tok = tf.gather(tokTable, tf.add(tokens, tf.tensor1d(tokOffset, 'int32')));
      const pos = tf.gather(posTable, tf.add(positions, tf.tensor1d(posOffset, 'int32')));
      return tf.add(tok, pos) as tf.Tensor2D;
    });
  }

  /** LN1 and the fused QKV projection: x [B·T, D] (B rows, member-major) → q (scaled by 1/√dh), k, v [B, H, T, dh] */
  qkv(x: tf.Tensor2D, blk: string, B: number, T: number): [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D] {
    const { width, heads } = this.config;
    const dh = width / heads;
    const p = (key: string) => this.variable(blk + key);
    const h = memberLayerNorm(this.byMember(x, 'qkv'), p('ln1/g'), p('ln1/b'));
    const proj = memberLinear(h, p('attn/qkv/w'), p('attn/qkv/b')); // [K, B·T / K, 3D]
    const qkv = tf.transpose(tf.reshape(proj, [B, T, 3 * heads, dh]), [0, 2, 1, 3]); // [B, 3H, T, dh]
    const [q, k, v] = tf.split(qkv, 3, 1) as [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D];
    return [tf.mul(q, 1 / Math.sqrt(dh)), k, v];
  }

  /** attention output projection plus the residual: x [B·T, D], heads' outputs y [B, H, T, dh] → [B·T, D] */
  attnOut(x: tf.Tensor2D, y: tf.Tensor4D, blk: string, B: number, T: number): tf.Tensor2D {
    const merged = tf.reshape(tf.transpose(y, [0, 2, 1, 3]), [B * T, this.config.width]) as tf.Tensor2D;
    const out = memberLinear(
      this.byMember(merged, 'attnOut'),
      this.variable(blk + 'attn/proj/w'),
      this.variable(blk + 'attn/proj/b'),
    );
    return tf.add(x, tf.reshape(out, x.shape)) as tf.Tensor2D;
  }

  /** LN2, MLP and the residual: x [N, D] → [N, D] */
  mlp(x: tf.Tensor2D, blk: string): tf.Tensor2D {
    const p = (key: string) => this.variable(blk + key);
    const h = memberLayerNorm(this.byMember(x, 'mlp'), p('ln2/g'), p('ln2/b'));
    const out = memberLinear(gelu(memberLinear(h, p('mlp/fc/w'), p('mlp/fc/b'))), p('mlp/out/w'), p('mlp/out/b'));
    return tf.add(x, tf.reshape(out, x.shape)) as tf.Tensor2D;
  }

  /** final LN and output head: x [N, D] → logits [N, V] */
  head(x: tf.Tensor2D): tf.Tensor2D {
    const p = (key: string) => this.variable(key);
    const h = memberLayerNorm(this.byMember(x, 'head'), p('ln_f/g'), p('ln_f/b'));
    const logits = this.config.tiedHead
      ? tf.add(matMul(h, p('tok_emb'), false, true), memberBias(p('head/b')))
      : memberLinear(h, p('head/w'), p('head/b'));
    return tf.reshape(logits, [x.shape[0], this.config.vocabSize]) as tf.Tensor2D;
  }

  /** x [N, d], member-major → [K, N / K, d] */
  private byMember(x: tf.Tensor2D, what: string): tf.Tensor3D {
    const [N, d] = x.shape;
    return tf.reshape(x, [this.members, this.perMember(N, what), d]);
  }

  /** entries per member of N, which the member count must divide */
  private perMember(N: number, what: string): number {
    if (N % this.members !== 0)
      throw new Error(`${this.scope}.${what}: ${N} rows do not split into ${this.members} members' equal shares`);
    return N / this.members;
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
    if (this.disposed) throw new Error(`${this.scope} is disposed`);
  }
}

/** a per-member bias [K, n] as [K, 1, n], to broadcast over a member's rows */
function memberBias(b: tf.Tensor): tf.Tensor3D {
  const [K, n] = b.shape as [number, number];
  return tf.reshape(b, [K, 1, n]);
}

/** per-member x @ w + b: x [K, rows, in], w [K, in, out], b [K, out] → [K, rows, out] */
function memberLinear(x: tf.Tensor3D, w: tf.Tensor, b: tf.Tensor): tf.Tensor3D {
  return tf.add(matMul(x, w), memberBias(b)) as tf.Tensor3D;
}

/** layer normalisation over the last axis with per-member gain and bias: x [K, rows, d], g, b [K, d] */
function memberLayerNorm(x: tf.Tensor3D, g: tf.Tensor, b: tf.Tensor): tf.Tensor3D {
  const mean = tf.mean(x, 2, true);
  const xc = tf.sub(x, mean);
  const inv = tf.rsqrt(tf.add(tf.mean(tf.square(xc), 2, true), LAYER_NORM_EPSILON));
  return tf.add(tf.mul(tf.mul(xc, inv), memberBias(g)), memberBias(b)) as tf.Tensor3D;
}
