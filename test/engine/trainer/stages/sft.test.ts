// No skill reaches the student: every input of the student's stages — the SFT batches that train π_init (the
// checkpoint the student copies), its training rollouts and its validation rollouts — is in the student's view, with
// no skill segment (class skill, the <skill> marker; src/core/env/types.ts). The in-run teacher's own skill-view SFT
// (teacher.sftSteps) is where the skill-follower demonstrations go, with the skill in front. Built from a tiny config;
// nothing is trained.
import { describe, expect, it } from 'vitest';
import { Special, TokenClass, type Task } from '../../../../src/core/env/types';
import { resolveConfig } from '../../../../src/core/experiment/config';
import { createEnvFor } from '../../../../src/core/experiment/envFactory';
import { loadPreset } from '../../../../src/core/experiment/preset';
import type { RolloutOutput, RolloutRequest } from '../../../../src/engine/trainer/enginePort';
import { stepSeed } from '../../../../src/engine/trainer/seeds';
import { packSequences, type PackedSequences } from '../../../../src/engine/sequenceBatch';
import { demonstrationsOf } from '../../../../src/engine/trainer/stages/demonstrations';
import { sftBatch } from '../../../../src/engine/trainer/stages/sft';
import type { StageContext } from '../../../../src/engine/trainer/stages/stageContext';
import { trainingRollout, validationScore } from '../../../../src/engine/trainer/stages/stageRollouts';
import type { PolicyModel } from '../../../../src/engine/model';
import { lookupPreset } from '../../../support/presets';

const cfg = resolveConfig(
  { demonstrations: { tasks: 24 }, sft: { steps: 12, batchSize: 8 }, teacher: { sftSteps: 6 } },
  loadPreset('smoke', lookupPreset).config,
);
const env = createEnvFor(cfg);
const demos = demonstrationsOf({ demos: null, env, cfg });

/** positions of a packed batch that belong to a skill segment */
function skillPositions(p: PackedSequences): number {
  let n = 0;
  for (let i = 0; i < p.tokens.length; i++) if (p.classes[i] === TokenClass.skill || p.tokens[i] === Special.skill) n++;
  return n;
}

describe("the student's inputs carry no skill segment", () => {
  it("every SFT batch of π_init (the student's starting checkpoint) is skill-free demonstrations", () => {
    for (let k = 1; k <= cfg.sft.steps; k++) {
      const batch = sftBatch(demos, cfg, 'student', stepSeed(cfg.seed, 'sft', k, 'tasks'));
      expect(batch).toHaveLength(cfg.sft.batchSize);
      for (const d of batch) {
        expect(d.prefix, `sft step ${k}`).toBeUndefined();
        expect(demos.train, `sft step ${k}: a student-view demonstration`).toContain(d);
      }
      expect(skillPositions(packSequences(batch)), `sft step ${k}`).toBe(0);
    }
    // and the student-view pool itself: no stream holds a skill token
    expect(skillPositions(packSequences(demos.train))).toBe(0);
    expect(skillPositions(packSequences(demos.heldOut))).toBe(0);
  });

  it("the teacher's own SFT batches carry the skill segment in front (so the check above can fail)", () => {
    expect(demos.teacherView.length).toBe(cfg.demonstrations.tasks);
    for (let k = 1; k <= cfg.teacher.sftSteps; k++) {
      const batch = sftBatch(demos, cfg, 'teacher', stepSeed(cfg.seed, 'teacher', k, 'tasks'));
      for (const d of batch) expect(d.prefix).toEqual(d.task.skillTokens);
      const p = packSequences(batch);
      expect(skillPositions(p)).toBe(batch.length * (batch[0]!.task.skillTokens.length as number));
    }
  });

  it("the student's training and validation rollouts ask for the student's view; the teacher's for the skill view", async () => {
    const requests: RolloutRequest[] = [];
    const ctx = {
      cfg,
      env,
      withinStep: () => Promise.resolve(),
      engine: {
        rollout: (req: RolloutRequest) => {
          requests.push(req);
          const n = req.tasks.length;
          return Promise.resolve({
            packed: packSequences(req.tasks.map(() => ({ tokens: [1, 2], classes: [0, 0] }))),
            oldLogProbs: new Float32Array(n * 2),
            entropy: new Float32Array(n * 2),
            reward: new Float32Array(n),
            success: new Uint8Array(n),
            sampledTokens: 0,
            envSteps: 0,
          } satisfies RolloutOutput);
        },
        createOptimizer: () => {
          throw new Error('not used');
        },
      },
    } as unknown as StageContext;
    const policy = {} as PolicyModel;
    await trainingRollout(ctx, 'student', 1, policy, cfg.student.grpo);
    await validationScore(ctx, policy, false);
    await trainingRollout(ctx, 'teacher', 1, policy, cfg.teacher.grpo);
    await validationScore(ctx, policy, true);
    expect(requests.map((r) => r.withSkill)).toEqual([false, false, true, true]);
    // S and S_T: the same split (validation tasks 0..n−1), the same temperature, the same sampling seed
    const [sv, tv] = [requests[1]!, requests[3]!];
    expect(sv.temperature).toBe(cfg.student.validationTemperature);
    expect(tv.temperature).toBe(cfg.student.validationTemperature);
    expect(tv.seed).toBe(sv.seed);
    expect(tv.tasks.map((t: Task) => t.index)).toEqual(sv.tasks.map((t: Task) => t.index));
  });
});
