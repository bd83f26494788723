// EnginePort on the engine's own modules: rollout.ts (KV-cached batched rollouts) and optimizer.ts (Adam with an
// explicit epsilon and bit-exact checkpointable state). Two adaptations live here:
//  - Alignment: rollout.ts stores per-token arrays at the token's own position (log-prob of token t at t); the
//    losses want them at the position that PREDICTS it (target t = token t + 1). Shifted by one here.
//  - The teacher's view: rollout.ts samples from the student prefix only. For the teacher stage (the teacher
//    samples WITH its skill) the adapter hands rollout.ts tasks whose prompt starts with the fixed-length skill
//    segment (`<skill> … <pad>… <bos> prompt…`, exactly the teacher stream of env/types.ts) and an env view whose
//    context budget is larger by the skill length, then strips the S skill positions from the result so the
//    trainer always receives student-view streams. (If rollout.ts gains a native skill option, use it here.)
import * as tf from '@tensorflow/tfjs';
import type { AgentEnv, Task } from '../../core/env/types';
import { createAdam, getAdamState, setAdamState } from '../optimizer';
import { rollout, type RolloutBatch } from '../rollout';
import type { EnginePort, RolloutOutput, RolloutRequest, TrainerOptimizer } from './enginePort';

/** An env whose limits allow S more context tokens (the skill segment); everything else is the env itself. */
function withSkillBudget(env: AgentEnv, S: number): AgentEnv {
  return Object.create(env, {
    limits: { value: { ...env.limits, contextTokens: env.limits.contextTokens + S }, enumerable: true },
  }) as AgentEnv;
}

function skillTask(task: Task): Task {
  return { ...task, promptTokens: [...task.skillTokens, ...task.promptTokens] };
}

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
  const S = env.limits.skillTokens;
  const teacherEnv = withSkillBudget(env, S);
  return {
    async rollout(req: RolloutRequest): Promise<RolloutOutput> {
      const tasks = req.withSkill ? req.tasks.map(skillTask) : req.tasks;
      const batch = await rollout(req.policy, req.withSkill ? teacherEnv : env, tasks, {
        groupSize: 1,
        temperature: req.temperature,
        topP: 1,
        seed: req.seed >>> 0,
      });
      return toRolloutOutput(batch, req.withSkill ? S : 0);
    },
    createOptimizer(learningRate: number): TrainerOptimizer {
      const opt = createAdam({ learningRate });
      return {
        apply(grads: tf.NamedTensorMap): void {
          opt.applyGradients(grads as Parameters<typeof opt.applyGradients>[0]);
        },
        // bit-exact (moments, step count and the bias-correction powers): see optimizer.ts
        getState: () => getAdamState(opt),
        setState: (state) => setAdamState(opt, state),
        dispose: () => opt.dispose(),
      };
    },
  };
}
