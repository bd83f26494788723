// End-to-end tests of the experiment trainer on the smoke preset (wasm backend, a few seconds per run).
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig, type ExperimentConfig } from '../../../src/core/experiment/config';
import { createEnvFor } from '../../../src/core/experiment/envFactory';
import { loadPreset } from '../../../src/core/experiment/preset';
import { initBackend } from '../../../src/engine/backend';
import {
  decodeCheckpoint,
  MemoryCheckpointStorage,
  type CheckpointContent,
} from '../../../src/engine/trainer/checkpoint';
import type { MetricsLine } from '../../../src/engine/trainer/events';
import type { TrainerOptions } from '../../../src/engine/trainer/trainer';
import { parseTrainerState, type TrainerState } from '../../../src/engine/trainer/trainerState';
import { lookupPreset } from '../../support/presets';
import { runTrainer as runTrainerOnce, type TrainerRun } from '../helpers/runTrainer';

const lookup = lookupPreset;

let smoke: ExperimentConfig;
beforeAll(async () => {
  await initBackend('wasm');
  // every checkpoint kept (the preset keeps the default: the last 3 plus stage starts): the tests resume from each
  smoke = resolveConfig({ runtime: { keepCheckpoints: 0 } }, loadPreset('smoke', lookup).config);
});

interface RunResult extends TrainerRun {
  /** student metrics lines without wall-clock keys */
  lines: MetricsLine[];
}

async function runTrainer(
  config: ExperimentConfig,
  extra: Partial<TrainerOptions> = {},
  storage = new MemoryCheckpointStorage(),
): Promise<RunResult> {
  const run = await runTrainerOnce(config, extra, storage);
  const lines = run.events.flatMap((e) =>
    e.type === 'step' && e.stage === 'student'
      ? [Object.fromEntries(Object.entries(e.metrics).filter(([k]) => !k.startsWith('time/'))) as MetricsLine]
      : [],
  );
  return { ...run, lines };
}

async function load(
  storage: MemoryCheckpointStorage,
  name: string,
  config: ExperimentConfig,
): Promise<CheckpointContent<TrainerState>> {
  const files = await storage.read(name);
  if (!files) throw new Error(`no checkpoint ${name} (have ${(await storage.list()).join(', ')})`);
  return decodeCheckpoint(files, (raw) => parseTrainerState(raw, config));
}

describe('trainer on the smoke preset', () => {
  let base: RunResult;
  beforeAll(async () => {
    base = await runTrainer(smoke);
  });

  it('runs every stage end to end and the gate retires the teacher at the earliest step (10)', () => {
    expect(base.summary.status).toBe('completed');
    const stages = base.events
      .filter((e) => e.type === 'stage' && e.status === 'end')
      .map((e) => (e as { stage: string }).stage);
    expect(stages).toEqual(['demonstrations', 'sft', 'teacher', 'student', 'evaluation']);
    expect(base.summary.gate.retired).toBe(true);
    expect(base.summary.gate.triggerStep).toBe(10);
    const retire = base.events.find((e) => e.type === 'retirement');
    expect(retire).toMatchObject({ step: 10, triggerStep: 10, schedule: 'adaptive' });
    // after retirement: no teacher forward, no gap logged, λ_opd = 0, skipped forwards counted
    expect(base.summary.gate.teacherForwardRun).toBe(10);
    expect(base.summary.gate.teacherForwardSkipped).toBe(smoke.student.steps - 10);
    for (const l of base.lines) {
      expect('opd/teacher_student_gap_mean' in l).toBe(l.step <= 10);
      expect('val/success_rate' in l).toBe(l.step % 5 === 0);
      expect(l['retire_opd/opd_coef']).toBe(l.step < 10 ? smoke.student.lambdaOpd : 0);
    }
    expect(base.summary.test.passAtK).toHaveProperty('4');
    expect(Number.isFinite(base.summary.test.klFromInit)).toBe(true);
    expect(base.summary.sft!.observationCe).toBeLessThan(base.summary.sft!.observationCeBase);
  });

  it('logs every retire_opd metric of METHODS.md on every student step', () => {
    const names = [
      'k_step',
      'k_window_mean',
      'alignment_progress',
      'student_performance',
      'teacher_performance',
      'competence_ratio',
      'criterion_valid',
      'retired',
      'trigger_step',
      'opd_coef',
      'window_index',
      'window_fill',
      'num_evaluated_windows',
      'teacher_forward_skipped',
      'alignment_threshold',
      'competence_threshold',
      'teacher_forwards_skipped_total',
    ];
    for (const l of base.lines) for (const n of names) expect(l).toHaveProperty(`retire_opd/${n}`);
    expect(base.lines.at(-1)!['retire_opd/trigger_step']).toBe(10);
  });

  it('records the test success per misleading skill entry, one row per entry the test tasks retrieve', async () => {
    const cfg = resolveConfig(
      { student: { steps: 6 }, teacher: { steps: 1 }, sft: { steps: 2 }, evaluation: { testTasks: 64 } },
      smoke,
    );
    const r = await runTrainer(cfg);
    const env = createEnvFor(cfg);
    const misleading = Array.from({ length: 64 }, (_, i) => env.task('test', i)).filter((t) => t.skillMisleading);
    expect(misleading.length).toBeGreaterThan(0);
    const facts = r.summary.misleadingFacts!;
    expect(facts.map((f) => f.skill)).toEqual([...new Set(misleading.map((t) => t.skill!))].sort());
    expect(facts.reduce((a, f) => a + f.tasks, 0)).toBe(misleading.length);
    for (const f of facts) {
      // a mean of tasks · passN episodes of success 0/1
      const successes = f.successRate * f.tasks * cfg.evaluation.passN;
      expect(Math.abs(successes - Math.round(successes))).toBeLessThan(1e-9);
      expect(f.successRate).toBeGreaterThanOrEqual(0);
      expect(f.successRate).toBeLessThanOrEqual(1);
    }
  });

  it('leaves no tensors behind once disposed', async () => {
    const before = tf.memory().numTensors;
    await runTrainer(resolveConfig({ student: { steps: 6 }, teacher: { steps: 1 }, sft: { steps: 2 } }, smoke));
    expect(tf.memory().numTensors).toBe(before);
  });

  it('the temperature control samples hotter and reports a higher argument entropy at the higher temperature', async () => {
    const cfg = resolveConfig(
      { student: { steps: 2, schedule: 'none' }, sft: { steps: 2 }, evaluation: { temperatures: [2] } },
      smoke,
    );
    const r = await runTrainer(cfg);
    const [t1, t2] = r.summary.temperatureControl;
    expect(t1).toMatchObject({ temperature: 1, successRate: r.summary.test.successRate });
    expect(t2!.temperature).toBe(2);
    expect(t2!.argEntropy).toBeGreaterThan(t1!.argEntropy);
    // schedule none: no teacher stage at all
    expect(r.events.some((e) => e.type === 'stage' && e.stage === 'teacher' && e.status === 'skipped')).toBe(true);
    expect(r.summary.teacherPerformance).toBeNull();
    expect(r.summary.gate.teacherForwardRun).toBe(0);
  });

  it('matches a target argument entropy by bisection and reports success at that temperature', async () => {
    const cfg = resolveConfig(
      { student: { steps: 2, schedule: 'none' }, sft: { steps: 2 }, evaluation: { temperatures: [2] } },
      smoke,
    );
    const first = await runTrainer(cfg);
    const [t1, t2] = first.summary.temperatureControl;
    expect(first.summary.probeEntropy!.actionArg).toBe(t1!.argEntropy);
    expect(first.summary.matchedTemperature).toBeNull();
    // a target between the entropies at T = 1 and T = 2 is matched by a temperature strictly between them
    const target = (t1!.argEntropy + t2!.argEntropy) / 2;
    const r = await runTrainer(resolveConfig({ evaluation: { matchArgEntropy: target } }, cfg));
    const m = r.summary.matchedTemperature!;
    expect(m.target).toBe(target);
    expect(m.converged).toBe(true);
    expect(Math.abs(m.argEntropy - target)).toBeLessThanOrEqual(1e-3);
    expect(m.temperature).toBeGreaterThan(1);
    expect(m.temperature).toBeLessThan(2);
    // success there is the test evaluation at that temperature: what the temperature control reports for it
    const control = await runTrainer(resolveConfig({ evaluation: { temperatures: [m.temperature] } }, cfg));
    expect(control.summary.temperatureControl[1]).toEqual({
      temperature: m.temperature,
      successRate: m.successRate,
      argEntropy: m.argEntropy,
    });
    expect(m.passAtK).toHaveProperty('4');
    // the rest of the evaluation is unchanged by the matching
    expect(r.summary.test).toEqual(first.summary.test);
    expect(r.summary.temperatureControl).toEqual(first.summary.temperatureControl);
  });

  it('keeps only the newest runtime.keepCheckpoints mid-stage checkpoints, and every stage start', async () => {
    const cfg = resolveConfig({ runtime: { keepCheckpoints: 2 }, evaluation: { testTasks: 2 } }, smoke);
    const r = await runTrainer(cfg);
    expect((await r.storage.list()).sort()).toEqual([
      'student-000000',
      'student-000015',
      'student-000020',
      'teacher-000000',
    ]);
  });

  it.each(['student-000005', 'student-000010', 'student-000015', 'teacher-000000', 'sft-000005'])(
    'resuming from checkpoint %s continues bit-identically (same metrics, same trigger step)',
    async (name) => {
      const resume = await load(base.storage, name, smoke);
      const resumed = await runTrainer(smoke, { resume });
      const from = resume.state.stage === 'student' ? resume.state.step : 0;
      expect(resumed.lines).toEqual(base.lines.filter((l) => l.step > from));
      expect(resumed.summary.gate.triggerStep).toBe(base.summary.gate.triggerStep);
      expect(resumed.summary.test).toEqual(base.summary.test);
    },
  );

  it('refuses to resume into a different config, naming the differing fields', async () => {
    const other = resolveConfig({ student: { gate: { windowSize: 3 } } }, smoke);
    await expect(load(base.storage, 'student-000005', other)).rejects.toThrow(/student\.gate\.windowSize: 5 ≠ 3/);
  });

  it('stops on a non-finite loss naming the step and the term, and keeps the last good checkpoint', async () => {
    const storage = new MemoryCheckpointStorage();
    const r = await runTrainer(smoke, { injectNonFinite: { stage: 'student', step: 7, term: 'opd' } }, storage);
    expect(r.summary.status).toBe('failed');
    expect(r.summary.error).toMatch(/non-finite opd at student step 7/);
    const err = r.events.find((e) => e.type === 'error');
    expect(err).toMatchObject({ type: 'error', stage: 'student', step: 7, term: 'opd' });
    expect(r.lines.map((l) => l.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await storage.latest()).toBe('student-000005');
    const good = await load(storage, 'student-000005', smoke);
    expect(good.state.step).toBe(5);
    // the intact checkpoint resumes to the same result as the uninterrupted run
    const resumed = await runTrainer(smoke, { resume: good });
    expect(resumed.lines).toEqual(base.lines.filter((l) => l.step > 5));
  });

  it('names a non-finite SFT loss and a non-finite GRPO loss too', async () => {
    const cfg = resolveConfig({ student: { steps: 2 }, teacher: { steps: 1 }, sft: { steps: 3 } }, smoke);
    const a = await runTrainer(cfg, { injectNonFinite: { stage: 'sft', step: 2, term: 'sft' } });
    expect(a.summary.error).toMatch(/non-finite sft at sft step 2/);
    const b = await runTrainer(cfg, { injectNonFinite: { stage: 'teacher', step: 1, term: 'grpo' } });
    expect(b.summary.error).toMatch(/non-finite grpo at teacher step 1/);
  });
});
