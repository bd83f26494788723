// Plain batched sampling of continuations of equal-length prompts, with or without the KV cache. The benchmark's
// W2 workload and a reference for the cache's speed-up; agent episodes go through rollout.ts instead.
import * as tf from '@tensorflow/tfjs';
import { KVCache } from './kvCache';
import type { PolicyModel } from './model';
import {
  makeSamplingScratch,
  sampleToken,
  SeededRandom,
  validateSamplingOptions,
  type SamplingOptions,
} from './sampling';

export interface GenerateOptions extends SamplingOptions {
  /** tokens to sample per row */
  newTokens: number;
  seed: number;
  /** true: prefill once, then one-token cached steps; false: a full forward over the whole prefix every step */
  useCache: boolean;
}

/**
 * prompts: Int32Array [batch, promptLength]. Returns tokens [batch, promptLength + newTokens] and the sampled
 * tokens' temperature-1 log-probs [batch, newTokens].
 */
export async function generate(
  model: PolicyModel,
  prompts: Int32Array,
  batch: number,
  promptLength: number,
  options: GenerateOptions,
): Promise<{ tokens: Int32Array; logProbs: Float32Array }> {
  validateSamplingOptions(options);
  const V = model.config.vocabSize;
  const P = promptLength;
  const total = P + options.newTokens;
  if (prompts.length !== batch * P)
    throw new Error(`generate: prompts has ${prompts.length} entries, expected ${batch}·${P}`);
  if (total > model.config.contextTokens)
    throw new Error(`generate: ${total} tokens exceed contextTokens ${model.config.contextTokens}`);
  const tokens = new Int32Array(batch * total);
  for (let b = 0; b < batch; b++) tokens.set(prompts.subarray(b * P, (b + 1) * P), b * total);
  const logProbs = new Float32Array(batch * options.newTokens);
  const rng = new SeededRandom(options.seed);
  const scratch = makeSamplingScratch(V);
  const cache = options.useCache ? new KVCache(model, batch, total) : null;
  try {
    let step = new Int32Array(prompts);
    let chunk = P;
    const counts = new Int32Array(batch);
    for (let k = 0; k < options.newTokens; k++) {
      const len = P + k;
      let logitsT: tf.Tensor;
      if (cache !== null) {
        counts.fill(chunk);
        logitsT = cache.append(step, counts, chunk); // [batch, V]
      } else {
        const prefix = new Int32Array(batch * len);
        for (let b = 0; b < batch; b++) prefix.set(tokens.subarray(b * total, b * total + len), b * len);
        logitsT = tf.tidy(() => {
          const logits = model.forward(tf.tensor2d(prefix, [batch, len], 'int32')); // [batch, len, V]
          return tf.reshape(tf.slice(logits, [0, len - 1, 0], [batch, 1, V]), [batch, V]);
        });
      }
      let logits: Float32Array;
      try {
        logits = (await logitsT.data()) as Float32Array;
      } finally {
        logitsT.dispose();
      }
      step = new Int32Array(batch);
      for (let b = 0; b < batch; b++) {
        const s = sampleToken(logits, b, V, options, rng, scratch);
        tokens[b * total + len] = s.token;
        logProbs[b * options.newTokens + k] = s.logProb;
        step[b] = s.token;
      }
      chunk = 1;
    }
  } finally {
    cache?.dispose();
  }
  return { tokens, logProbs };
}
