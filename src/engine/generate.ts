// Plain batched sampling of continuations of equal-length prompts, with or without the KV cache: the benchmark's
// W2 workload and a reference for the cache's speed-up. It runs the rollouts' own decode loop (turnDecoder.ts) as
// one turn whose action is newTokens long, so W2 times exactly what a training rollout runs per token.
import type { PolicyModel } from './model';
import { validateSamplingOptions, type SamplingOptions } from './sampling';
import { NO_STOP, TurnDecoder } from './turnDecoder';

export interface GenerateOptions extends SamplingOptions {
  /** tokens to sample per row */
  newTokens: number;
  seed: number;
  /** true: prefill once, then one-token cached steps; false: a full forward over the whole prefix every step */
  useCache: boolean;
  /** false forces host sampling (default: on the device where the backend supports it, see turnDecoder.ts) */
  deviceSampling?: boolean;
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
  const P = promptLength;
  const total = P + options.newTokens;
  if (prompts.length !== batch * P)
    throw new Error(`generate: prompts has ${prompts.length} entries, expected ${batch}·${P}`);
  if (total > model.config.contextTokens)
    throw new Error(`generate: ${total} tokens exceed contextTokens ${model.config.contextTokens}`);
  const decoder = new TurnDecoder(model, batch, total, {
    temperature: options.temperature,
    topP: options.topP,
    seed: options.seed,
    useCache: options.useCache,
    ...(options.deviceSampling !== undefined ? { deviceSampling: options.deviceSampling } : {}),
  });
  const tokens = new Int32Array(batch * total);
  const logProbs = new Float32Array(batch * options.newTokens);
  try {
    for (let b = 0; b < batch; b++) decoder.push(b, prompts.subarray(b * P, (b + 1) * P));
    // one "action" of newTokens tokens per row, with no stop token
    const actions: number[][] = [];
    await decoder.decodeTurn(new Uint8Array(batch).fill(1), options.newTokens, NO_STOP, actions);
    tokens.set(decoder.tokens);
    for (let b = 0; b < batch; b++)
      logProbs.set(decoder.logProbs.subarray(b * total + P, (b + 1) * total), b * options.newTokens);
  } finally {
    decoder.dispose();
  }
  return { tokens, logProbs };
}
