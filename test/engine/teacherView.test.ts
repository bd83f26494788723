// The teacher's view (src/engine/teacherView.ts) and the engine's rollouts must agree on alignment: the teacher
// log-probs of the student's targets equal a float64 log-softmax of a separate forward over [skill, stream] of each
// row (tolerance 1e-4, float32 vs float64), a rollout's recorded old log-probs equal a fresh forward of the same
// policy, and sampling in the teacher's view hands the trainer student-view streams.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ShellEnv } from '../../src/core/env/shellEnv';
import { TokenClass } from '../../src/core/env/types';
import { initBackend } from '../../src/engine/backend';
import { PolicyModel } from '../../src/engine/model';
import { rollout, sequenceLogProbs, type RolloutBatch } from '../../src/engine/rollout';
import { teacherOnStudentTargets } from '../../src/engine/teacherView';
import { createEnginePort, toRolloutOutput } from '../../src/engine/trainer/engineAdapter';
import { toTensors } from '../../src/engine/sequenceBatch';

beforeAll(async () => {
  await initBackend('wasm');
});

/** A one-layer policy with room for the teacher's view (skill segment + episode). */
const tinyPolicy = (env: ShellEnv) => ({
  vocabSize: env.vocab.size,
  contextTokens: env.limits.contextTokens + env.limits.skillTokens,
  width: 32,
  layers: 1,
  heads: 2,
  mlp: 64,
  tiedHead: false,
});

describe('teacher and rollout alignment', () => {
  it('teacher log-probs on student targets equal a separate forward over the skill segment and the stream', async () => {
    const env = new ShellEnv({ seed: 1 });
    const cfg = tinyPolicy(env);
    const student = new PolicyModel(cfg, 1, 'st');
    const teacher = new PolicyModel(cfg, 2, 'te');
    try {
      const tasks = Array.from({ length: 4 }, (_, i) => env.task('train', i));
      const batch: RolloutBatch = await rollout(student, env, tasks, {
        groupSize: 2,
        temperature: 1,
        topP: 1,
        seed: 9,
      });
      const rowTasks = tasks.flatMap((t) => [t, t]);
      const out = toRolloutOutput(batch, 0);
      const t = toTensors(out.packed);
      const mine = teacherOnStudentTargets(teacher, out.packed, rowTasks, t.targets, false);
      const lp = (await mine.logProbs.data()) as Float32Array;
      // reference: row b alone, its task's skill in front, float64 log-softmax at the position predicting token p
      const reference = (b: number, p: number): number => {
        const task = rowTasks[b]!;
        const seq = [...task.skillTokens, ...batch.tokens.subarray(b * batch.length, b * batch.length + p + 1)];
        const logits = tf.tidy(() => teacher.forward(tf.tensor2d([seq], [1, seq.length], 'int32'))).arraySync()[0]!;
        const row = logits[seq.length - 2]!.map(Number);
        const max = Math.max(...row);
        const lse = max + Math.log(row.reduce((a, z) => a + Math.exp(z - max), 0));
        return row[seq[seq.length - 1]!]! - lse;
      };
      const old = await sequenceLogProbs(student, batch);
      let compared = 0;
      for (let b = 0; b < batch.size; b++) {
        for (let p = 1; p < (batch.lengths[b] as number); p++) {
          const cls = batch.classes[b * batch.length + p] as number;
          if (cls !== TokenClass.actionHead && cls !== TokenClass.actionArg) continue;
          const i = b * out.packed.seqLen + p - 1; // target p−1 is token p
          if (compared < 40) expect(Math.abs((lp[i] as number) - reference(b, p))).toBeLessThan(1e-4);
          // the rollout's recorded log-prob (after the adapter's shift) equals a full forward of the sampler
          expect(out.oldLogProbs[i]).toBeCloseTo(old[b * batch.length + p] as number, 4);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(20);
      mine.logProbs.dispose();
      tf.dispose([t.tokens, t.targets, t.targetClasses]);
    } finally {
      student.dispose();
      teacher.dispose();
    }
  });

  it("the teacher's view rollout strips the skill segment: student-view streams with the same prompts", async () => {
    const env = new ShellEnv({ seed: 1 });
    const cfg = tinyPolicy(env);
    const m = new PolicyModel(cfg, 3, 'tv');
    try {
      const tasks = Array.from({ length: 3 }, (_, i) => env.task('validation', i));
      const r = await createEnginePort(env).rollout({ policy: m, tasks, withSkill: true, temperature: 1, seed: 4 });
      tasks.forEach((task, b) => {
        const row = Array.from(
          r.packed.tokens.subarray(b * r.packed.seqLen, b * r.packed.seqLen + task.promptTokens.length),
        );
        expect(row).toEqual([...task.promptTokens]);
        expect(r.packed.lengths[b]).toBeLessThanOrEqual(env.limits.contextTokens);
      });
    } finally {
      m.dispose();
    }
  });
});
