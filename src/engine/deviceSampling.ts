import type * as tf from '@tensorflow/tfjs';
import type { KVCache } from './kvCache';
import type { PolicyModel } from './model';
import type { SamplingOptions, SeededRandom } from './sampling';

/** What one turn decoded on the device needs from the decoder (turnDecoder.ts), per context row r. */
export interface DeviceTurn {
  cache: KVCache;
  model: PolicyModel;
  options: SamplingOptions;
  rng: SeededRandom;
  /** [R] 1 for rows that sample an action this turn */
  rowActing: Int32Array;
  /** [R] tokens written per row at the turn's start (fed or not) */
  rowLength: Int32Array;
  capacity: number;
  maxTokens: number;
  stopToken: number;
  betweenDecodeSteps: (() => Promise<void>) | undefined;
  /** the turn's first step: feeds the host-known unfed tokens, returns logits [R, V] */
  firstStep(): tf.Tensor2D;
  /** row r's sampled tokens, their log-probs and entropies, and how many of them the device already fed */
  commit(
    r: number,
    tokens: ArrayLike<number>,
    logProbs: ArrayLike<number>,
    entropy: ArrayLike<number>,
    fed: number,
  ): void;
  /** counts one more decode step (the first is counted by firstStep) */
  countStep(): void;
}

export function deviceSamplingAvailable(_o: SamplingOptions): boolean {
  return false;
}

export async function decodeTurnOnDevice(_t: DeviceTurn): Promise<void> {
  throw new Error('decodeTurnOnDevice: not available');
}
