// The KV cache's reference: the same append contract as KVCache (feed counts[b] tokens to row b, return the logits
// at each row's last fed token), computed by a full forward over every row's whole prefix at every step. It is the
// benchmark's "uncached" W2 and nothing else uses it: O(T²) work per token instead of O(T).
import * as tf from '@tensorflow/tfjs';
import type { PolicyModel } from './model';

export class UncachedContext {
  /** tokens fed so far, per row */
  private history: number[][];

  constructor(
    private readonly model: PolicyModel,
    rows: number,
    readonly capacity: number,
  ) {
    this.history = Array.from({ length: rows }, () => []);
  }

  get batch(): number {
    return this.history.length;
  }

  keepRows(rows: readonly number[]): void {
    this.history = rows.map((r) => this.history[r] as number[]);
  }

  /** tokens [batch·chunk] (row b's first counts[b] entries are fed), counts [batch] → logits [batch, vocab] */
  append(tokens: Int32Array, counts: Int32Array, chunk: number): tf.Tensor2D {
    const B = this.batch;
    const V = this.model.config.vocabSize;
    this.history.forEach((h, b) => {
      for (let j = 0; j < (counts[b] as number); j++) h.push(tokens[b * chunk + j] as number);
      if (h.length > this.capacity)
        throw new Error(`UncachedContext.append: row ${b} would hold ${h.length} tokens, capacity is ${this.capacity}`);
    });
    const L = Math.max(1, ...this.history.map((h) => h.length));
    const prefix = new Int32Array(B * L);
    this.history.forEach((h, b) => prefix.set(h, b * L));
    const lengths = this.history.map((h) => Math.max(1, h.length));
    return tf.tidy(() => {
      const logits = this.model.forward(tf.tensor2d(prefix, [B, L], 'int32')); // [B, L, V]
      if (lengths.every((n) => n === L)) return tf.reshape(tf.slice(logits, [0, L - 1, 0], [B, 1, V]), [B, V]);
      // rows of different lengths: each row's last token (right padding never reaches it: attention is causal)
      const at = tf.tensor1d(
        lengths.map((n, b) => b * L + n - 1),
        'int32',
      );
      return tf.gather(tf.reshape(logits, [B * L, V]), at) as tf.Tensor2D;
    });
  }

  dispose(): void {
    this.history = [];
  }
}
