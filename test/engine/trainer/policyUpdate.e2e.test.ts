// The updates of one rollout (src/engine/trainer/policyUpdate.ts): with one mini-batch the only update is on-policy
// (every ratio is exactly 1, nothing is clipped); with two, the second sees a policy the first moved, so the ratio
// spreads and the PPO clip acts. A tiny policy on the smoke preset's shell tasks, cpu backend, one rollout.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig, type ExperimentConfig } from '../../../src/core/experiment/config';
import { createEnvFor } from '../../../src/core/experiment/envFactory';
import { loadPreset } from '../../../src/core/experiment/preset';
import { METRIC } from '../../../src/core/runLog/metricKeys';
import { PolicyModel } from '../../../src/engine/model';
import { modelConfigFor } from '../../../src/engine/modelConfig';
import { createEnginePort } from '../../../src/engine/trainer/engineAdapter';
import { policyUpdate } from '../../../src/engine/trainer/policyUpdate';
import { groupedTrainTasks } from '../../../src/engine/trainer/seeds';
import { lookupPreset } from '../../support/presets';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

async function oneStep(
  miniBatches: number,
  epochs: number,
  withTeacher = false,
): Promise<{ metrics: Record<string, number>; gap: number | null }> {
  const cfg: ExperimentConfig = resolveConfig(
    { student: { grpo: { miniBatches, epochs, learningRate: 0.05, gradClip: null } } },
    loadPreset('smoke', lookupPreset).config,
  );
  const env = createEnvFor(cfg);
  const engine = createEnginePort(env);
  const before = tf.memory().numTensors;
  const policy = new PolicyModel(modelConfigFor(cfg, env), 7, 'mbTest');
  const teacher = withTeacher ? new PolicyModel(modelConfigFor(cfg, env), 8, 'mbTeacher') : null;
  const g = cfg.student.grpo;
  // groups with mixed rewards are needed for a non-zero advantage: take the first step whose rollout has some
  try {
    for (let step = 1; step <= 20; step++) {
      const tasks = groupedTrainTasks(env, 'student', step, g.tasksPerStep, g.groupSize);
      const rollout = await engine.rollout({ policy, tasks, withSkill: false, temperature: 1, seed: 100 + step });
      const rewards = Array.from(rollout.reward);
      if (Math.max(...rewards) === Math.min(...rewards)) continue;
      const optimizer = engine.createOptimizer(g.learningRate, policy.trainableVariables);
      const u = await policyUpdate({
        stage: 'student',
        step,
        policy,
        optimizer,
        rollout,
        tasks,
        groupSize: g.groupSize,
        grpo: g,
        withSkill: false,
        opd: teacher ? { teacher, coef: 1, estimator: 'k3' } : null,
        reference: null,
      });
      optimizer.dispose();
      return u;
    }
    throw new Error('no rollout with mixed rewards in 20 steps');
  } finally {
    policy.dispose();
    teacher?.dispose();
    expect(tf.memory().numTensors, 'no tensor is left behind').toBe(before);
  }
}

describe('PPO mini-batches make the later updates off-policy', () => {
  it('one mini-batch: one on-policy update, ratio exactly 1 with no spread and no clipping', async () => {
    const m = (await oneStep(1, 1)).metrics;
    expect(m[METRIC.actorUpdates]).toBe(1);
    expect(m[METRIC.actorRatioMean]).toBeCloseTo(1, 6);
    expect(m[METRIC.actorRatioStd]).toBeLessThan(1e-3);
    expect(m[METRIC.actorPgClipfracLower]! + m[METRIC.actorPgClipfracHigher]!).toBe(0);
  });

  it('two mini-batches × two epochs: four updates, the ratio spreads and the clip fraction is above 0', async () => {
    const m = (await oneStep(2, 2)).metrics;
    expect(m[METRIC.actorUpdates]).toBe(4);
    expect(m[METRIC.actorRatioStd]).toBeGreaterThan(1e-3);
    expect(m[METRIC.actorPgClipfracLower]! + m[METRIC.actorPgClipfracHigher]!).toBeGreaterThan(0);
    expect(Number.isFinite(m[METRIC.actorGradNorm])).toBe(true);
    expect(m[METRIC.actorGradClipCoef]).toBe(1); // gradClip off here
  });

  it("OPD under mini-batches: the gap g_k is the rollout's, whatever the split, and k3's ratio moves off 1", async () => {
    const one = await oneStep(1, 1, true);
    const two = await oneStep(2, 2, true);
    expect(one.gap).not.toBeNull();
    expect(two.gap).toBe(one.gap);
    expect(one.metrics[METRIC.opdRatioMean]).toBeCloseTo(1, 6);
    expect(Math.abs(two.metrics[METRIC.opdRatioMean]! - 1)).toBeGreaterThan(1e-4);
    expect(Number.isFinite(two.metrics[METRIC.opdLoss])).toBe(true);
  });
});
