// GKD's student-sampled fraction λ (src/engine/trainer/teacherSampled.ts; docs/METHODS.md §3, distillation forms):
// which student steps distil on the teacher's own samples, drawn from the run's seed scheme; the policy update on
// such a step (the JSD on the teacher's tokens against a float64 reference, GRPO and the gap g_k on the student's
// rollout, no tensor left behind); and a short student stage at λ = 0.5 that logs opd/teacher_sampled per step.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig, type ExperimentConfig } from '../../../src/core/experiment/config';
import { createEnvFor } from '../../../src/core/experiment/envFactory';
import { loadPreset } from '../../../src/core/experiment/preset';
import { hashInts } from '../../../src/core/rng';
import { METRIC } from '../../../src/core/runLog/metricKeys';
import { PolicyModel } from '../../../src/engine/model';
import { modelConfigFor } from '../../../src/engine/modelConfig';
import { teacherOnStudentTargets } from '../../../src/engine/teacherView';
import { createEnginePort } from '../../../src/engine/trainer/engineAdapter';
import type { TrainerEvent } from '../../../src/engine/trainer/events';
import { policyUpdate, type UpdateResult } from '../../../src/engine/trainer/policyUpdate';
import { groupedTrainTasks } from '../../../src/engine/trainer/seeds';
import { disposeTensors, toTensors } from '../../../src/engine/sequenceBatch';
import {
  distillSourceUniform,
  teacherSampledRollout,
  teacherSamplesStep,
} from '../../../src/engine/trainer/teacherSampled';
import { Trainer } from '../../../src/engine/trainer/trainer';
import { refGeneralizedJsdRows } from '../losses/distillReference';
import { isAction, refMaskedMean } from '../losses/reference';
import { lookupPreset } from '../../support/presets';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** The seed scheme written out: hash(seed, student stage salt 14, step, purpose 5) / 2^32, in float64. */
const uniformByHand = (seed: number, step: number): number => hashInts(seed, 14, step, 5) / 2 ** 32;

/** Step k's choice through teacherSamplesStep, counting the uniforms it draws. */
function choices(seed: number, fraction: number, steps: number): { teacher: boolean[]; draws: number } {
  let draws = 0;
  const teacher = Array.from({ length: steps }, (_, i) =>
    teacherSamplesStep(fraction, () => {
      draws++;
      return distillSourceUniform(seed, i + 1);
    }),
  );
  return { teacher, draws };
}

describe("the choice of a step's distillation batch", () => {
  it('is the teacher exactly when u_k ≥ λ, at the rate 1 − λ (within 4 binomial standard deviations)', () => {
    const seed = 1003;
    const n = 4000;
    for (const fraction of [0.25, 0.5, 0.9]) {
      const { teacher, draws } = choices(seed, fraction, n);
      expect(draws).toBe(n);
      expect(teacher).toEqual(Array.from({ length: n }, (_, i) => uniformByHand(seed, i + 1) >= fraction));
      const rate = teacher.filter(Boolean).length / n;
      const sd = Math.sqrt((fraction * (1 - fraction)) / n);
      expect(Math.abs(rate - (1 - fraction)), `λ = ${fraction}`).toBeLessThanOrEqual(4 * sd);
    }
  });

  it('is never the teacher at λ = 1 and always at λ = 0, and draws no uniform for either', () => {
    expect(choices(7, 1, 500)).toEqual({ teacher: Array(500).fill(false), draws: 0 });
    expect(choices(7, 0, 500)).toEqual({ teacher: Array(500).fill(true), draws: 0 });
  });

  it('refuses λ outside [0, 1], naming the key', () => {
    expect(() => teacherSamplesStep(1.5, () => 0)).toThrow(/student\.distill\.studentFraction.*\[0, 1\].*1\.5/);
  });
});

describe('a teacher-sampled policy update (gkd-jsd, cpu, the smoke preset’s shell tasks)', () => {
  const beta = 0.3;

  /** One update from a fresh policy on the same student rollout; `teacherSampled`: distil on the teacher's samples. */
  async function update(teacherSampled: boolean): Promise<{ u: UpdateResult; reference: number | null }> {
    const cfg: ExperimentConfig = resolveConfig({}, loadPreset('smoke', lookupPreset).config);
    const env = createEnvFor(cfg);
    const engine = createEnginePort(env);
    const before = tf.memory().numTensors;
    const policy = new PolicyModel(modelConfigFor(cfg, env), 7, 'sampledTest');
    const teacher = new PolicyModel(modelConfigFor(cfg, env), 8, 'sampledTeacher');
    const g = { ...cfg.student.grpo, miniBatches: 1, epochs: 1 };
    try {
      const tasks = groupedTrainTasks(env, 'student', 1, g.tasksPerStep, g.groupSize);
      const rollout = await engine.rollout({ policy, tasks, withSkill: false, temperature: 1, seed: 101 });
      const samples = teacherSampled ? (await teacherSampledRollout(engine, teacher, tasks, 1, 5, 1)).packed : null;
      // float64 reference of the JSD on the teacher's tokens, from the float32 logits before the update
      let reference: number | null = null;
      if (samples) {
        const st = toTensors(samples);
        const s = tf.tidy(() =>
          policy.forward(tf.tensor2d(samples.tokens, [samples.batch, samples.seqLen], 'int32'), samples.lengths),
        );
        const tch = teacherOnStudentTargets(teacher, samples, tasks, st.targets, true);
        const V = s.shape[2]!;
        const rows = refGeneralizedJsdRows(s.dataSync(), tch.logits!.dataSync(), V, beta);
        const classes = st.targetClasses.dataSync();
        reference = refMaskedMean(rows, (i) => isAction(classes[i] ?? -1));
        tf.dispose([s, tch.logProbs, tch.logits!]);
        disposeTensors(st);
      }
      const optimizer = engine.createOptimizer(g.learningRate, policy.trainableVariables);
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
        opd: {
          teacher,
          coef: 1,
          estimator: 'k3',
          distill: { form: 'gkd-jsd', estimator: 'k3', topK: 4, beta },
          ...(samples ? { teacherSamples: samples } : {}),
        },
        reference: null,
      });
      optimizer.dispose();
      return { u, reference };
    } finally {
      policy.dispose();
      teacher.dispose();
      expect(tf.memory().numTensors, 'no tensor is left behind').toBe(before);
    }
  }

  it("computes the JSD on the teacher's tokens, and GRPO and the gap on the student's rollout", async () => {
    const onPolicy = (await update(false)).u;
    const { u, reference } = await update(true);
    // the distillation term and the form's divergence: JSD_β on the teacher's samples, 1e-4 relative (float32 tfjs
    // against the float64 reference, the loss tests' tolerance: the JSD is a small difference of logs)
    expect(reference).not.toBeNull();
    expect(reference!).toBeGreaterThan(0);
    expect(Math.abs(u.metrics[METRIC.opdDivergence]! - reference!)).toBeLessThanOrEqual(1e-4 * reference!);
    expect(u.metrics[METRIC.opdLoss]).toBe(u.metrics[METRIC.opdDivergence]);
    expect(u.metrics[METRIC.opdDivergence]).not.toBe(onPolicy.metrics[METRIC.opdDivergence]);
    // the gate's g_k and the GRPO term are the student rollout's, the same as on a student-sampled step
    expect(u.gap).toBe(onPolicy.gap);
    expect(u.metrics[METRIC.actorPgLoss]).toBe(onPolicy.metrics[METRIC.actorPgLoss]);
    // no π_old on the teacher's tokens: no k3 or ratio statistic
    expect(METRIC.opdK3Kl in u.metrics).toBe(false);
    expect(METRIC.opdRatioMean in u.metrics).toBe(false);
  });
});

describe('a student stage with gkd-jsd at λ = 0.5 (cpu, smoke preset, 6 student steps)', () => {
  const events: TrainerEvent[] = [];
  let config: ExperimentConfig;
  beforeAll(async () => {
    config = resolveConfig(
      {
        sft: { steps: 1 },
        teacher: { steps: 1 },
        student: {
          steps: 6,
          validationEvery: 3,
          schedule: 'never',
          distill: { form: 'gkd-jsd', beta: 0.5, studentFraction: 0.5 },
        },
        evaluation: { temperatures: [], testTasks: 2 },
        runtime: { checkpointEvery: 0, backend: 'cpu' },
      },
      loadPreset('smoke', lookupPreset).config,
    );
    const env = createEnvFor(config);
    const trainer = new Trainer({
      config,
      env,
      engine: createEnginePort(env),
      storage: null,
      onEvent: (e) => events.push(e),
    });
    try {
      await trainer.run();
    } finally {
      trainer.dispose();
    }
  }, 300_000);

  it('logs opd/teacher_sampled 0/1 per step as the seed draws it, with the gap and the JSD every step', () => {
    const lines = events.flatMap((e) => (e.type === 'step' && e.stage === 'student' ? [e.metrics] : []));
    expect(lines).toHaveLength(6);
    const expected = lines.map((_, i) => (uniformByHand(config.seed, i + 1) >= 0.5 ? 1 : 0));
    expect(lines.map((m) => m[METRIC.opdTeacherSampled])).toEqual(expected);
    // this seed draws both sources within six steps (else the test would not exercise both)
    expect(new Set(expected)).toEqual(new Set([0, 1]));
    for (const m of lines) {
      expect(Number.isFinite(m[METRIC.opdTeacherStudentGapMean])).toBe(true);
      expect(Number.isFinite(m[METRIC.opdDivergence])).toBe(true);
      expect(METRIC.opdK3Kl in m).toBe(m[METRIC.opdTeacherSampled] === 0);
    }
  });
});
