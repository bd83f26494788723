// Incremental decoding with a key/value cache. One general operation, `append`, feeds every row of the batch
// its own chunk of new tokens (a prompt prefill, one sampled token, or an observation) and returns the logits at
// each row's last new token. Rows keep their own length: a token at cache slot p of a row has position p, so a
// batch of episodes with different prompt and observation lengths decodes together.
//
// Writes into the cache are a batched matMul with a 0/1 write matrix (no scatter, same on every backend), and
// the cache is append-only, so a slot is written exactly once and K' = K + W·k.
//
// On wasm the cache is trimmed: it holds only the slots some row has filled (its extent grows as rows do; in a
// shell rollout that is about a quarter of the capacity), a kernel writes the new slots (wasmKvWrite.ts), and the
// two attention products run over the extent. The softmax still spans the whole capacity: XNNPACK's softmax sums
// in SIMD lanes whose order depends on the row's length, so a shorter row could change the last bits. The slots
// past the extent get the score a zero key gets on the full cache (0 + MASKED), and masked weights are exactly 0,
// so every product sums the same terms in the same order, plus or minus trailing zeros: the logits are the same
// bits as the full cache's (test/engine/kvCache.test.ts).
import * as tf from '@tensorflow/tfjs';
import { useFusedKernels } from './kernels/kernelSwitch';
import { LAYER_NORM_EPSILON, MASKED, matMul } from './layers';
import { PolicyModel, type ModelConfig } from './model';
import { DECODE_ATTENTION_KERNEL, KV_WRITE_KERNEL, ROW_LINEAR_KERNEL } from './kernels/webgpuDecodeStep';
import { DECODE_EMBED_KERNEL, DECODE_MASK_KERNEL, STATE_COLUMNS } from './kernels/webgpuSampling';
import { WASM_KV_WRITE_KERNEL } from './wasmKvWrite';

/** whether caches on the active backend keep only the filled slots (wasm, where the kernel is registered) */
function trimsCache(): boolean {
  return tf.getBackend() === 'wasm' && tf.getKernel(WASM_KV_WRITE_KERNEL, 'wasm') !== undefined;
}

/**
 * What the cache needs of a model: PolicyModel, or memberModel.ts's MemberModel (K members, whose rows are the
 * cache's, member-major). `blk` is whatever the model's `blocks` hold; shapes as PolicyModel's methods.
 */
export interface CacheModel<Blk = unknown> {
  readonly config: ModelConfig;
  readonly name: string;
  readonly isDisposed: boolean;
  /** K for a MemberModel (the cache's rows split into K equal member-major shares); absent for one model */
  readonly members?: number;
  readonly blocks: readonly Blk[];
  /** tokens, positions [N] → [N, D] */
  embed(tokens: tf.Tensor1D, positions: tf.Tensor1D): tf.Tensor2D;
  /** x [B·C, D] → q (scaled), k, v [B, H, C, dh] */
  qkv(x: tf.Tensor2D, blk: Blk, B: number, C: number): [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D];
  /** x [B·C, D], y [B, H, C, dh] → x + projection [B·C, D] */
  attnOut(x: tf.Tensor2D, y: tf.Tensor4D, blk: Blk, B: number, C: number): tf.Tensor2D;
  /** x [N, D] → x + MLP [N, D] */
  mlp(x: tf.Tensor2D, blk: Blk): tf.Tensor2D;
  /** x [N, D] → logits [N, V] */
  head(x: tf.Tensor2D): tf.Tensor2D;
  /** a parameter by key ('tok_emb' is [V, D], or a MemberModel's [K, V, D]) */
  variable(key: string): tf.Variable;
}

export class KVCache {
  private rowCount: number;
  /** slots per row (≤ the model's contextTokens) */
  readonly capacity: number;
  /** tokens held per row (host mirror; the next token of row b goes to slot/position lengths[b]) */
  private rowLengths: Int32Array;
  private keys: tf.Tensor4D[] = []; // per layer [B, H, extent, dh]
  private values: tf.Tensor4D[] = [];
  /** whether the cache keeps only the filled slots (fixed at construction) */
  private readonly trimmed: boolean;
  /** slots held per row: the capacity, or (trimmed) at least every row's length and at least 1 */
  private extent: number;
  private readonly model: CacheModel;
  private disposed = false;

  /**
   * `trim`: keep only the filled slots (default: on wasm); false keeps the full layout everywhere. A MemberModel's
   * cache holds K·b rows (member-major); its rows cannot leave one by one (no keepRows).
   */
  constructor(model: CacheModel, batch: number, capacity = model.config.contextTokens, trim = trimsCache()) {
    const c = model.config;
    if (!Number.isInteger(batch) || batch <= 0)
      throw new Error(`KVCache: batch must be a positive integer, got ${batch}`);
    const members = model.members ?? 1;
    if (batch % members !== 0)
      throw new Error(`KVCache: batch ${batch} does not split into ${model.name}'s ${members} members' equal shares`);
    if (!Number.isInteger(capacity) || capacity <= 0 || capacity > c.contextTokens) {
      throw new Error(
        `KVCache: capacity must be an integer in [1, ${c.contextTokens}] (the model's contextTokens), got ${capacity}`,
      );
    }
    this.model = model;
    this.rowCount = batch;
    this.capacity = capacity;
    this.rowLengths = new Int32Array(batch);
    if (trim && !trimsCache())
      throw new Error(`KVCache: a trimmed cache needs the wasm backend's ${WASM_KV_WRITE_KERNEL} kernel`);
    this.trimmed = trim;
    this.extent = this.trimmed ? 1 : capacity;
    this.allocate();
  }

  /** rows held (fewer after keepRows) */
  get batch(): number {
    return this.rowCount;
  }

  /** tokens held per row (host mirror; the next token of row b goes to slot/position lengths[b]) */
  get lengths(): Int32Array {
    return this.rowLengths;
  }

  /**
   * Keeps only the given rows, in the given order (row i of the cache becomes rows[i]'s old content): finished
   * episodes leave the batch, so later steps compute only the live ones. Every row's computation depends on that
   * row alone, so a kept row's logits are the same bits as before.
   */
  keepRows(rows: readonly number[]): void {
    this.assertLive();
    if (!(this.model instanceof PolicyModel))
      throw new Error(`KVCache.keepRows: ${this.model.name}'s rows are member-major and stay (feed them nothing)`);
    if (rows.length === 0) throw new Error('KVCache.keepRows: keep at least one row');
    for (const r of rows)
      if (!Number.isInteger(r) || r < 0 || r >= this.rowCount)
        throw new Error(`KVCache.keepRows: row ${r} is outside [0, ${this.rowCount})`);
    const idx = tf.tensor1d(Int32Array.from(rows), 'int32');
    try {
      const pick = (xs: tf.Tensor4D[]): tf.Tensor4D[] => xs.map((x) => tf.gather(x, idx) as tf.Tensor4D);
      const keys = pick(this.keys);
      const values = pick(this.values);
      this.release();
      this.keys = keys;
      this.values = values;
    } finally {
      idx.dispose();
    }
    this.rowLengths = Int32Array.from(rows, (r) => this.rowLengths[r] as number);
    this.rowCount = rows.length;
  }

  private allocate(): void {
    const { heads, width, layers } = this.model.config;
    const shape: [number, number, number, number] = [this.batch, heads, this.extent, width / heads];
    for (let l = 0; l < layers; l++) {
      this.keys.push(tf.zeros(shape));
      this.values.push(tf.zeros(shape));
    }
  }

  /** empties every row (keeps the buffers' shapes) */
  reset(): void {
    this.assertLive();
    this.release();
    this.rowLengths.fill(0);
    if (this.trimmed) this.extent = 1;
    this.allocate();
  }

  /**
   * Feeds tokens[b·chunk + j] for j < counts[b] to row b (rows with counts[b] = 0 are untouched).
   * tokens: Int32Array [batch·chunk] (entries past counts[b] are ignored), counts: [batch].
   * Returns logits [batch, vocab] at each row's last fed token; rows with counts[b] = 0 get unspecified values.
   * The caller owns (and disposes) the returned tensor.
   */
  append(tokens: Int32Array, counts: Int32Array, chunk: number): tf.Tensor2D {
    this.assertLive();
    const m = this.model;
    const { vocabSize } = m.config;
    const B = this.batch;
    const C = chunk;
    const cap = this.capacity;
    if (!Number.isInteger(C) || C <= 0) throw new Error(`KVCache.append: chunk must be a positive integer, got ${C}`);
    if (tokens.length !== B * C)
      throw new Error(`KVCache.append: tokens has ${tokens.length} entries, expected batch·chunk = ${B * C}`);
    if (counts.length !== B)
      throw new Error(`KVCache.append: counts has ${counts.length} entries, expected batch = ${B}`);

    // slots held after this append: the capacity, or (trimmed) the longest row
    let extent = this.extent;
    for (let b = 0; b < B; b++) {
      const n = counts[b] as number;
      const len = this.lengths[b] as number;
      if (n < 0 || n > C) throw new Error(`KVCache.append: counts[${b}] = ${n} is outside [0, ${C}]`);
      if (len + n > cap) throw new Error(`KVCache.append: row ${b} would hold ${len + n} tokens, capacity is ${cap}`);
      extent = Math.max(extent, len + n);
    }
    const trimmed = this.trimmed;
    // host-built index tensors: positions [B·C], write slots [B·C] (trimmed) or write matrix (1 where slot ← chunk
    // token), additive mask [B, 1, C, cap], last-token selector [B, 1, C]
    const pos = new Int32Array(B * C);
    const toks = new Int32Array(B * C);
    const H = m.config.heads;
    // write matrix: [B, 1, cap, 1] for one token per row, else repeated per head on the host as [B, H, cap, C]
    // (tfjs matMul's batch broadcasting pairs [B, 1]·[B, H] wrongly, and Tile is slow on wasm)
    const write = trimmed ? new Float32Array(0) : new Float32Array(C === 1 ? B * cap : B * H * cap * C);
    const slots = trimmed ? new Int32Array(B * C).fill(-1) : new Int32Array(0);
    const mask = new Float32Array(B * C * cap).fill(MASKED);
    const select = new Float32Array(B * C);
    for (let b = 0; b < B; b++) {
      const n = counts[b] as number;
      const len = this.lengths[b] as number;
      for (let j = 0; j < C; j++) {
        const i = b * C + j;
        const live = j < n;
        const p = live ? len + j : Math.max(0, len - 1);
        pos[i] = p;
        const t = live ? (tokens[i] as number) : 0;
        if (live && !(t >= 0 && t < vocabSize))
          throw new Error(`KVCache.append: token ${t} at row ${b} is outside [0, ${vocabSize})`);
        toks[i] = t;
        if (live && trimmed) slots[i] = p;
        else if (live && C === 1) write[b * cap + p] = 1;
        else if (live) for (let h = 0; h < H; h++) write[((b * H + h) * cap + p) * C + j] = 1;
        // query j of row b sees slots 0..p (padding queries see what the row holds; their outputs are unused)
        const visible = live ? p : Math.max(0, len + n - 1);
        mask.fill(0, i * cap, i * cap + visible + 1);
      }
      if (n > 0) select[b * C + n - 1] = 1;
    }

    const slotsT = trimmed ? () => tf.tensor1d(slots, 'int32') : null;
    const result = this.layers(
      () => m.embed(tf.tensor1d(toks, 'int32'), tf.tensor1d(pos, 'int32')),
      slotsT ?? (() => tf.tensor4d(write, C === 1 ? [B, 1, cap, 1] : [B, H, cap, C])),
      () => tf.tensor4d(mask, [B, 1, C, cap]),
      C,
      extent,
      C === 1 ? null : () => tf.tensor3d(select, [B, 1, C]),
      trimmed,
    );
    this.keys = result.newKeys;
    this.values = result.newValues;
    this.extent = extent;
    for (let b = 0; b < B; b++) this.rowLengths[b] = (this.rowLengths[b] as number) + (counts[b] as number);
    return result.logits;
  }

  /**
   * One decode step whose input is built on the device (webgpu, full cache): `state` is the packed decode state of
   * kernels/webgpuSampling.ts [batch, 8]; each row that sampled at that step feeds its token, the others nothing.
   * The host length mirror is NOT advanced: the caller reports what was fed with `advanceLengths` once it knows.
   * Returns logits [batch, vocab] (rows that fed nothing get unspecified values); the caller disposes them.
   * A MemberModel's rows take their own member's weights (the fused kernels' rowsPerMember).
   */
  appendOnDevice(state: tf.Tensor2D): tf.Tensor2D {
    this.assertLive();
    if (this.trimmed) throw new Error('KVCache.appendOnDevice: needs a full (untrimmed) cache');
    const B = this.batch;
    const cap = this.capacity;
    if (state.shape[0] !== B || state.shape[1] !== STATE_COLUMNS)
      throw new Error(`KVCache.appendOnDevice: state is [${state.shape}], expected [${B}, ${STATE_COLUMNS}]`);
    const engine = tf.engine();
    if (useFusedKernels()) return this.fusedStep(state);
    const result = this.layers(
      () => this.embedOnDevice(state),
      () => engine.runKernel(DECODE_MASK_KERNEL, { state }, { capacity: cap, mode: 'write' }) as tf.Tensor4D,
      () => engine.runKernel(DECODE_MASK_KERNEL, { state }, { capacity: cap, mode: 'mask' }) as tf.Tensor4D,
      1,
      cap,
      null,
      false,
    );
    this.keys = result.newKeys;
    this.values = result.newValues;
    return result.logits;
  }

  /** rows per member: the batch for one model, b for a MemberModel's K·b */
  private get rowsPerMember(): number {
    return this.batch / (this.model.members ?? 1);
  }

  /**
   * A parameter as the fused kernels take it: one model's as it is; a MemberModel's stacked over members, rank one
   * lower ([K, in, out] → [K·in, out], [K, n] → [K·n]). Call inside a tidy (the reshape is a new tensor).
   */
  private param(key: string): tf.Tensor {
    const v = this.model.variable(key);
    if (this.model.members === undefined) return v;
    return tf.reshape(v, v.rank === 3 ? [-1, v.shape[2] as number] : [-1]);
  }

  /** x0 [B, D] of a device-built step: each feeding row's token and position embedding, from its member's tables */
  private embedOnDevice(state: tf.Tensor2D): tf.Tensor2D {
    return tf
      .engine()
      .runKernel(
        DECODE_EMBED_KERNEL,
        { state, tokEmb: this.param('tok_emb'), posEmb: this.param('pos_emb') },
        { rowsPerStream: this.rowsPerMember },
      ) as tf.Tensor2D;
  }

  /**
   * appendOnDevice in the fused kernels of kernels/webgpuDecodeStep.ts: per layer LN + QKV, the two cache writes,
   * attention, projection + residual, LN + MLP-in + GELU, MLP-out + residual (7 programs), then LN + head. A
   * MemberModel's rows take their own member's weights in the same programs.
   */
  private fusedStep(state: tf.Tensor2D): tf.Tensor2D {
    const m = this.model;
    const engine = tf.engine();
    const rowsPerMember = this.rowsPerMember;
    const linear = (
      x: tf.Tensor,
      prefix: string,
      o: { ln?: string; gelu?: boolean; res?: tf.Tensor; transposeW?: boolean },
    ): tf.Tensor2D =>
      engine.runKernel(
        ROW_LINEAR_KERNEL,
        {
          x,
          w: this.param(o.transposeW ? 'tok_emb' : `${prefix}/w`),
          bias: this.param(`${prefix}/b`),
          ...(o.ln ? { lnG: this.param(`${o.ln}/g`), lnB: this.param(`${o.ln}/b`) } : {}),
          ...(o.res ? { res: o.res } : {}),
        },
        {
          ln: o.ln !== undefined,
          epsilon: LAYER_NORM_EPSILON,
          gelu: o.gelu === true,
          residual: o.res !== undefined,
          transposeW: o.transposeW === true,
          rowsPerMember,
        },
      ) as tf.Tensor2D;
    const newKeys: tf.Tensor4D[] = [];
    const newValues: tf.Tensor4D[] = [];
    const logits = tf.tidy(() => {
      let x = this.embedOnDevice(state);
      for (let l = 0; l < m.config.layers; l++) {
        const h = `h${l}/`;
        const qkv = linear(x, `${h}attn/qkv`, { ln: `${h}ln1` }); // [R, 3D]
        const write = (cache: tf.Tensor4D, part: 1 | 2): tf.Tensor4D =>
          tf.keep(engine.runKernel(KV_WRITE_KERNEL, { cache, qkv, state }, { part }) as tf.Tensor4D);
        const K = write(this.keys[l] as tf.Tensor4D, 1);
        const V = write(this.values[l] as tf.Tensor4D, 2);
        newKeys.push(K);
        newValues.push(V);
        const y = engine.runKernel(DECODE_ATTENTION_KERNEL, { qkv, keys: K, values: V, state }) as tf.Tensor2D;
        x = linear(y, `${h}attn/proj`, { res: x });
        const hidden = linear(x, `${h}mlp/fc`, { ln: `${h}ln2`, gelu: true });
        x = linear(hidden, `${h}mlp/out`, { res: x });
      }
      return linear(x, 'head', { ln: 'ln_f', transposeW: m.config.tiedHead });
    });
    this.release();
    this.keys = newKeys;
    this.values = newValues;
    return logits;
  }

  /** Advances the host length mirror by what appendOnDevice steps fed (counts [batch]). */
  advanceLengths(counts: Int32Array): void {
    for (let b = 0; b < this.batch; b++) {
      const n = (this.rowLengths[b] as number) + (counts[b] as number);
      if (n > this.capacity) throw new Error(`KVCache.advanceLengths: row ${b} would hold ${n} tokens`);
      this.rowLengths[b] = n;
    }
  }

  /**
   * The transformer over the fed tokens, the cache written: x0 [B·C, D] the input embeddings, `write` the write
   * matrix ([B, 1, cap, 1] for C = 1, else [B, H, cap, C]) or (trimmed) the slots [B·C], mask [B, 1, C, cap],
   * select [B, 1, C] (null when C = 1) picks each row's last fed token. Releases the old cache tensors; returns the
   * new ones and the logits [B, V].
   */
  private layers(
    makeX0: () => tf.Tensor2D,
    makeWrite: () => tf.Tensor,
    makeMask: () => tf.Tensor4D,
    C: number,
    extent: number,
    makeSelect: (() => tf.Tensor3D) | null,
    trimmed: boolean,
  ): { logits: tf.Tensor2D; newKeys: tf.Tensor4D[]; newValues: tf.Tensor4D[] } {
    const m = this.model;
    const { width, heads: H } = m.config;
    const B = this.batch;
    const cap = this.capacity;
    const result = tf.tidy(() => {
      let x = makeX0(); // [B·C, D]
      // trimmed: one kernel copies the cache into `extent` slots and adds k at its slots. Full: one new token per
      // row: K' = K + w ⊙ k with w [B, 1, cap, 1] broadcast over heads (elementwise broadcasting is right);
      // several: K' = K + W·k with W [B, H, cap, C]
      const slotsT = trimmed ? (makeWrite() as tf.Tensor1D) : null;
      const writeT = trimmed ? null : (makeWrite() as tf.Tensor4D);
      const written = (cache: tf.Tensor4D, kv: tf.Tensor4D): tf.Tensor4D =>
        slotsT
          ? (tf.engine().runKernel(WASM_KV_WRITE_KERNEL, { cache, kv, slots: slotsT }, { extent }) as tf.Tensor4D)
          : (tf.add(cache, C === 1 ? tf.mul(writeT!, kv) : matMul(writeT!, kv)) as tf.Tensor4D);
      const maskT = makeMask();
      const newKeys: tf.Tensor4D[] = [];
      const newValues: tf.Tensor4D[] = [];
      m.blocks.forEach((blk, l) => {
        const [q, k, v] = m.qkv(x, blk, B, C); // [B, H, C, dh]
        const K = written(this.keys[l] as tf.Tensor4D, k); // [B, H, extent, dh]
        const V = written(this.values[l] as tf.Tensor4D, v);
        newKeys.push(K);
        newValues.push(V);
        let scores = matMul(q, K, false, true) as tf.Tensor4D; // [B, H, C, extent]
        // past the extent a full cache holds zero keys, whose scores are 0
        if (extent < cap)
          scores = tf.pad(scores, [
            [0, 0],
            [0, 0],
            [0, 0],
            [0, cap - extent],
          ]);
        let att = tf.softmax(tf.add(scores, maskT)) as tf.Tensor4D; // [B, H, C, cap]
        if (extent < cap) att = tf.slice(att, [0, 0, 0, 0], [B, H, C, extent]);
        x = m.mlp(m.attnOut(x, matMul(att, V) as tf.Tensor4D, blk, B, C), blk);
      });
      // hidden state of each row's last new token: [B, 1, C] @ [B, C, D] → [B, D]
      const last =
        makeSelect === null
          ? x
          : (tf.reshape(matMul(makeSelect(), tf.reshape(x, [B, C, width])), [B, width]) as tf.Tensor2D);
      return { logits: m.head(last), newKeys, newValues };
    });
    this.release();
    return result;
  }

  private release(): void {
    for (const t of this.keys) t.dispose();
    for (const t of this.values) t.dispose();
    this.keys = [];
    this.values = [];
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.release();
  }

  private assertLive(): void {
    if (this.disposed) throw new Error('KVCache is disposed');
    if (this.model.isDisposed) throw new Error(`KVCache: model ${this.model.name} is disposed`);
  }
}
