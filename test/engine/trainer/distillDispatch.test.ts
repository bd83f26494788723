// The policy update's distillation dispatch (src/engine/trainer/policyUpdate.ts → engine/losses/distillLoss.ts): one
// update of a tiny policy on the smoke preset's shell tasks per form, cpu backend, the same rollout for every form.
// Every form reports the same gap g_k (the gate's K = −g means the same under each), its own opd/divergence where it
// has one, and no tensor is left behind; reverse-kl given explicitly is the update without a form, bit for bit.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig, type ExperimentConfig } from '../../../src/core/experiment/config';
import { createEnvFor } from '../../../src/core/experiment/envFactory';
import { loadPreset } from '../../../src/core/experiment/preset';
import { DISTILL_FORMS, type DistillForm } from '../../../src/core/methodVocabulary';
import { METRIC } from '../../../src/core/runLog/metricKeys';
import { PolicyModel } from '../../../src/engine/model';
import { modelConfigFor } from '../../../src/engine/modelConfig';
import { createEnginePort } from '../../../src/engine/trainer/engineAdapter';
import { policyUpdate, type UpdateResult } from '../../../src/engine/trainer/policyUpdate';
import { groupedTrainTasks } from '../../../src/engine/trainer/seeds';
import { lookupPreset } from '../../support/presets';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** One update from the same fresh policy and rollout, with `form` (null: no form given, the original call). */
async function update(form: DistillForm | null): Promise<UpdateResult> {
  const cfg: ExperimentConfig = resolveConfig({}, loadPreset('smoke', lookupPreset).config);
  const env = createEnvFor(cfg);
  const engine = createEnginePort(env);
  const before = tf.memory().numTensors;
  const policy = new PolicyModel(modelConfigFor(cfg, env), 7, 'formTest');
  const teacher = new PolicyModel(modelConfigFor(cfg, env), 8, 'formTeacher');
  const g = cfg.student.grpo;
  try {
    const tasks = groupedTrainTasks(env, 'student', 1, g.tasksPerStep, g.groupSize);
    const rollout = await engine.rollout({ policy, tasks, withSkill: false, temperature: 1, seed: 101 });
    const optimizer = engine.createOptimizer(g.learningRate, policy.trainableVariables);
    const distill = form === null ? {} : { distill: { form, estimator: 'k3' as const, topK: 4, beta: 0.5 } };
    const u = await policyUpdate({
      stage: 'student',
      step: 1,
      policy,
      optimizer,
      rollout,
      tasks,
      groupSize: g.groupSize,
      grpo: g,
      withSkill: false,
      opd: { teacher, coef: 1, estimator: 'k3', ...distill },
      reference: null,
    });
    optimizer.dispose();
    return u;
  } finally {
    policy.dispose();
    teacher.dispose();
    expect(tf.memory().numTensors, 'no tensor is left behind').toBe(before);
  }
}

describe('the distillation forms through the policy update', () => {
  it('every form measures the same gap, and reports its own divergence where it has one', async () => {
    const plain = await update(null);
    expect(plain.gap).not.toBeNull();
    for (const form of DISTILL_FORMS) {
      const u = await update(form);
      expect(u.gap, form).toBe(plain.gap);
      const hasOwn = form === 'topk-forward-kl' || form === 'gkd-jsd' || form === 'kl-reward';
      expect(METRIC.opdDivergence in u.metrics, form).toBe(hasOwn);
      expect(Number.isFinite(u.metrics[METRIC.opdLoss]), form).toBe(true);
      if (form === 'reverse-kl') expect(u.metrics).toEqual(plain.metrics);
    }
  });
});
