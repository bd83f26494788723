// EnginePort on the engine's own modules: rollout.ts (KV-cached batched rollouts) and optimizer.ts (Adam with an
// explicit epsilon and bit-exact checkpointable state). Two adaptations live here:
//  - Alignment: rollout.ts stores per-token arrays at the token's own position (log-prob of token t at t); the
//    losses want them at the position that PREDICTS it (target t = token t + 1). Shifted by one here.
//  - The teacher's view: the teacher stage samples with rollout.ts's `withSkill` option (the skill segment in front;
//    teacherView.ts); the S skill positions are stripped from the result, so the trainer always receives
//    student-view streams.
import * as tf from '@tensorflow/tfjs';
import type { AgentEnv } from '../../core/env/types';
import { createAdam, getAdamState, setAdamState } from '../optimizer';
import { useFusedKernels } from '../kernels/kernelSwitch';
import type { AdamGuard } from '../kernels/webgpuAdam';
import { rollout, type RolloutBatch } from '../rollout';
import type { EnginePort, RolloutOutput, RolloutRequest, TrainerOptimizer } from './enginePort';

/** Convert a RolloutBatch to the trainer's view: drop `S` leading positions, shift per-token arrays to targets. */
export function toRolloutOutput(b: RolloutBatch, S: number): RolloutOutput {
  const N = b.size;
  const T = Math.max(2, b.length - S);
  const tokens = new Int32Array(N * T);
  const classes = new Int32Array(N * T).fill(-1);
  const lengths = new Int32Array(N);
  const oldLogProbs = new Float32Array(N * T);
  const entropy = new Float32Array(N * T);
  let envSteps = 0;
  for (let i = 0; i < N; i++) {
    const n = (b.lengths[i] as number) - S;
    lengths[i] = n;
    envSteps += b.turns[i] as number;
    const src = i * b.length + S;
    tokens.set(b.tokens.subarray(src, src + n), i * T);
    classes.set(b.classes.subarray(src, src + n), i * T);
    // value of token t+1 goes to position t (the position whose logits predict it)
    for (let t = 0; t + 1 < n; t++) {
      oldLogProbs[i * T + t] = b.oldLogProbs[src + t + 1] as number;
      entropy[i * T + t] = b.entropy[src + t + 1] as number;
    }
  }
  return {
    packed: { batch: N, seqLen: T, tokens, classes, lengths },
    oldLogProbs,
    entropy,
    reward: b.reward,
    success: b.success,
    sampledTokens: b.policyTokens,
    envSteps,
  };
}

export function createEnginePort(env: AgentEnv): EnginePort {
  return {
    async rollout(req: RolloutRequest): Promise<RolloutOutput> {
      const batch = await rollout(req.policy, env, req.tasks, {
        groupSize: 1,
        temperature: req.temperature,
        topP: 1,
        seed: req.seed >>> 0,
        withSkill: req.withSkill,
        ...(req.betweenDecodeSteps ? { betweenDecodeSteps: req.betweenDecodeSteps } : {}),
      });
      return toRolloutOutput(batch, batch.skillTokens);
    },
    createOptimizer(learningRate: number): TrainerOptimizer {
      const opt = createAdam({ learningRate });
      return {
        apply(grads: tf.NamedTensorMap): void {
          opt.applyGradients(grads as Parameters<typeof opt.applyGradients>[0]);
        },
        ...(useFusedKernels()
          ? {
              applyGuarded(grads: tf.NamedTensorMap, _variables: readonly tf.Variable[], guard: AdamGuard): void {
                opt.applyGuardedGradients(grads as Parameters<typeof opt.applyGradients>[0], guard);
              },
              forgetRefused: (updates: number) => opt.forgetRefusedUpdates(updates),
            }
          : {}),
        // bit-exact (moments, step count and the bias-correction powers): see optimizer.ts
        getState: () => getAdamState(opt),
        setState: (state) => setAdamState(opt, state),
        dispose: () => opt.dispose(),
      };
    },
  };
}
