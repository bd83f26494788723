// The two engine services the trainer needs beyond the model and the losses — batched rollouts and an Adam
// optimizer with checkpointable state — as small interfaces. engineAdapter.ts implements them on the engine's
// rollout.ts and optimizer.ts; tests may pass stand-ins.
import type * as tf from '@tensorflow/tfjs';
import type { Task } from '../../core/env/types';
import type { PolicyModel } from '../model';
import type { HostTensor } from '../hostTensor';
import type { AdamGuard } from '../kernels/webgpuAdam';
import type { PackedSequences } from '../sequenceBatch';

export interface RolloutRequest {
  policy: PolicyModel;
  /** one entry per episode (a task repeated G times for a GRPO group) */
  tasks: readonly Task[];
  /** the teacher's view: the skill segment precedes the stream */
  withSkill: boolean;
  temperature: number;
  /** seeds the sampling stream; the same seed and weights give the same rollout on a given backend */
  seed: number;
  /** awaited between decode steps (rollout.ts): where a pause holds a long validation; changes no value */
  betweenDecodeSteps?: () => Promise<void>;
}

export interface RolloutOutput {
  /** the STUDENT-view streams (prompt, actions, observations; no skill segment), padded */
  packed: PackedSequences;
  /** [B·T] log π_old of target t (= token t + 1) at temperature 1; 0 where the target is not a policy token */
  oldLogProbs: Float32Array;
  /** [B·T] entropy (nats) of the sampling policy at the position predicting target t; 0 where not a policy token */
  entropy: Float32Array;
  reward: Float32Array;
  success: Uint8Array;
  /** policy tokens sampled and environment steps taken in this rollout */
  sampledTokens: number;
  envSteps: number;
}

export interface TrainerOptimizer {
  /** one update of `variables` from `grads` (keyed by variable name) */
  apply(grads: tf.NamedTensorMap, variables: readonly tf.Variable[]): void;
  /**
   * webgpu only (absent elsewhere): one update with every gradient scaled by `guard.scale` and skipped entirely —
   * weights, moments, bias-correction powers — where `guard.ok` is 0; both float32 scalars stay on the device
   * (checkedUpdate.ts's device path)
   */
  applyGuarded?(grads: tf.NamedTensorMap, variables: readonly tf.Variable[], guard: AdamGuard): void;
  /** with applyGuarded: the last `updates` guarded updates were refused (read afterwards); undo their step count */
  forgetRefused?(updates: number): void;
  getState(): Promise<Record<string, HostTensor>>;
  setState(state: Record<string, HostTensor>): Promise<void>;
  dispose(): void;
}

export interface EnginePort {
  rollout(request: RolloutRequest): Promise<RolloutOutput>;
  createOptimizer(learningRate: number, variables: readonly tf.Variable[]): TrainerOptimizer;
}
