// Stopping a run (Ctrl-C in the CLI, Stop in the page: Trainer.requestStop) takes effect at the next step boundary
// in every stage — evaluation included, with or without periodic checkpoints — writes a checkpoint there, and that
// checkpoint resumes to the same result as the uninterrupted run. Only finite state ever becomes a checkpoint.
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig, type ExperimentConfig } from '../../../src/core/experiment/config';
import { createEnvFor } from '../../../src/core/experiment/envFactory';
import { loadPreset } from '../../../src/core/experiment/preset';
import type { RunSummary } from '../../../src/core/experiment/summary';
import { initBackend } from '../../../src/engine/backend';
import { decodeCheckpoint, MemoryCheckpointStorage, verifyCheckpoint } from '../../../src/engine/trainer/checkpoint';
import { createEnginePort } from '../../../src/engine/trainer/engineAdapter';
import type { TrainerEvent } from '../../../src/engine/trainer/events';
import { Trainer, type TrainerOptions } from '../../../src/engine/trainer/trainer';
import { parseTrainerState } from '../../../src/engine/trainer/trainerState';
import { lookupPreset } from '../../support/presets';

let cfg: ExperimentConfig;
beforeAll(async () => {
  await initBackend('wasm');
  // small and without periodic checkpoints: a stop must still write one
  cfg = resolveConfig(
    {
      sft: { steps: 3 },
      teacher: { steps: 2 },
      student: { steps: 4, validationEvery: 2 },
      evaluation: { temperatures: [2], testTasks: 4 },
      runtime: { checkpointEvery: 0 },
    },
    loadPreset('smoke', lookupPreset).config,
  );
});

interface Run {
  summary: RunSummary;
  events: TrainerEvent[];
  storage: MemoryCheckpointStorage;
}

/** Run the trainer; `stopWhen` sees each event and may ask for a stop (as the worker's control does). */
async function run(
  stopWhen: (e: TrainerEvent) => boolean = () => false,
  extra: Partial<TrainerOptions> = {},
  storage: MemoryCheckpointStorage | null = new MemoryCheckpointStorage(),
): Promise<Run> {
  const env = createEnvFor(extra.config ?? cfg);
  const events: TrainerEvent[] = [];
  const trainer: Trainer = new Trainer({
    config: cfg,
    env,
    engine: createEnginePort(env),
    storage,
    onEvent: (e) => {
      events.push(e);
      if (stopWhen(e)) trainer.requestStop();
    },
    ...extra,
  });
  try {
    return { summary: await trainer.run(), events, storage: storage ?? new MemoryCheckpointStorage() };
  } finally {
    trainer.dispose();
  }
}

const steps = (r: Run, stage: string): number[] =>
  r.events.flatMap((e) => (e.type === 'step' && e.stage === stage ? [e.step] : []));

async function resumeFrom(storage: MemoryCheckpointStorage, name: string): Promise<Run> {
  const files = (await storage.read(name))!;
  await verifyCheckpoint(files, name, { requireManifest: true });
  const resume = decodeCheckpoint(files, (raw) => parseTrainerState(raw, cfg));
  return run(() => false, { resume });
}

describe('stopping a run', () => {
  let base: Run;
  beforeAll(async () => {
    base = await run();
  });

  it('a stop during teacher step 1 ends at that step with a checkpoint that resumes bit-identically', async () => {
    const r = await run((e) => e.type === 'step' && e.stage === 'teacher' && e.step === 1);
    expect(r.summary.status).toBe('interrupted');
    expect(steps(r, 'teacher')).toEqual([1]);
    expect(steps(r, 'student')).toEqual([]);
    const ck = r.events.filter((e) => e.type === 'checkpoint').at(-1);
    expect(ck).toMatchObject({ name: 'teacher-000001', reason: 'interrupt', stage: 'teacher', step: 1 });
    // a stop right after resuming (before the next step) leaves the checkpoint it resumed from untouched
    const before = await r.storage.read('teacher-000001');
    const env = createEnvFor(cfg);
    const files = (await r.storage.read('teacher-000001'))!;
    const again = new Trainer({
      config: cfg,
      env,
      engine: createEnginePort(env),
      storage: r.storage,
      onEvent: () => undefined,
      resume: decodeCheckpoint(files, (raw) => parseTrainerState(raw, cfg)),
    });
    again.requestStop();
    try {
      expect((await again.run()).status).toBe('interrupted');
    } finally {
      again.dispose();
    }
    expect(await r.storage.read('teacher-000001')).toEqual(before);
    const resumed = await resumeFrom(r.storage, 'teacher-000001');
    expect(steps(resumed, 'teacher')).toEqual([2]);
    expect(resumed.summary.test).toEqual(base.summary.test);
    expect(resumed.summary.gate).toEqual(base.summary.gate);
  });

  it('a stop during evaluation ends there with a checkpoint; resuming repeats only the evaluation', async () => {
    const r = await run((e) => e.type === 'evaluation' && e.kind === 'final');
    expect(r.summary.status).toBe('interrupted');
    // the temperature control after the final evaluation did not run
    expect(r.summary.temperatureControl).toEqual([]);
    expect(await r.storage.latest()).toBe('evaluation-000000');
    const resumed = await resumeFrom(r.storage, 'evaluation-000000');
    expect(resumed.events.filter((e) => e.type === 'step')).toEqual([]);
    expect(resumed.summary.status).toBe('completed');
    expect(resumed.summary.test).toEqual(base.summary.test);
    expect(resumed.summary.temperatureControl).toEqual(base.summary.temperatureControl);
    expect(resumed.summary.gate).toEqual(base.summary.gate);
  });

  it('a stop asked for before the run starts stops at once, and that checkpoint resumes to the same result', async () => {
    const storage = new MemoryCheckpointStorage();
    const env = createEnvFor(cfg);
    const trainer = new Trainer({ config: cfg, env, engine: createEnginePort(env), storage, onEvent: () => undefined });
    trainer.requestStop();
    try {
      expect((await trainer.run()).status).toBe('interrupted');
    } finally {
      trainer.dispose();
    }
    expect(await storage.list()).toEqual(['demonstrations-000000']);
    const resumed = await resumeFrom(storage, 'demonstrations-000000');
    expect(resumed.summary.test).toEqual(base.summary.test);
  });

  it('a stop without checkpoint storage still ends the run interrupted at the next step', async () => {
    const r = await run((e) => e.type === 'step' && e.stage === 'sft' && e.step === 2, {}, null);
    expect(r.summary.status).toBe('interrupted');
    expect(steps(r, 'sft')).toEqual([1, 2]);
  });

  it('refuses to write a checkpoint of non-finite weights (a learning rate beyond float32 makes them infinite)', async () => {
    const wild = resolveConfig({ sft: { learningRate: 1e39 }, runtime: { checkpointEvery: 1 } }, cfg);
    const storage = new MemoryCheckpointStorage();
    const r = await run(() => false, { config: wild }, storage);
    expect(r.summary.status).toBe('failed');
    // the step itself was finite; the weights it produced are not, so the periodic checkpoint is refused
    expect(r.summary.error).toMatch(/^non-finite weights at sft step 1: init\/\S+ holds NaN\/Infinity/);
    expect(r.events.find((e) => e.type === 'error')).toMatchObject({ stage: 'sft', step: 1, term: 'weights' });
    expect(await storage.list()).toEqual([]);
  });
});
