// Shared by cli/experiment.ts and cli/sweep.ts: presets from public/presets, the shipped teacher, one run of the
// trainer into a run folder with a progress bar, Ctrl-C handling, and resume. Node only.
import cliProgress from 'cli-progress';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, type ExperimentConfig } from '../src/core/experiment/config';
import { createEnvFor } from '../src/core/experiment/envFactory';
import { loadPreset, PRESET_NAMES, type Preset } from '../src/core/experiment/preset';
import type { RunSummary } from '../src/core/experiment/summary';
import { initBackend, type BackendName } from '../src/engine/backend';
import {
  decodeCheckpoint,
  encodeCheckpoint,
  type CheckpointContent,
  type CheckpointFiles,
} from '../src/engine/trainer/checkpoint';
import { createEnginePort } from '../src/engine/trainer/engineAdapter';
import { STAGE_NAMES, type TrainerEvent } from '../src/engine/trainer/events';
import { fromHostRecords, modelConfigFor, Trainer } from '../src/engine/trainer/trainer';
import { parseTrainerState, type TrainerState } from '../src/engine/trainer/trainerState';
import type { WeightRecord } from '../src/engine/weights';
import { RunFolder } from './runFolder';
import { onInterrupt } from './interrupt';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const PRESET_DIR = join(ROOT, 'public', 'presets');

/** A user error: printed as is (no stack), exit code 2. */
export class UserError extends Error {}

export function availablePresets(): string[] {
  try {
    return readdirSync(PRESET_DIR)
      .filter((f) => f.endsWith('.json') && f !== 'index.json')
      .map((f) => f.slice(0, -5))
      .sort();
  } catch {
    return [...PRESET_NAMES];
  }
}

export function readPreset(name: string): Preset {
  const lookup = (n: string): unknown => {
    if (!/^[a-z0-9-]+$/.test(n)) return undefined;
    const path = join(PRESET_DIR, `${n}.json`);
    if (!existsSync(path)) return undefined;
    try {
      return JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new ConfigError([`${path}: not valid JSON (${(e as Error).message})`], `preset ${n}`);
    }
  };
  return loadPreset(name, lookup, availablePresets());
}

async function readFolder(dir: string): Promise<CheckpointFiles> {
  const files: CheckpointFiles = new Map();
  for (const f of readdirSync(dir)) files.set(f, new Uint8Array(readFileSync(join(dir, f))));
  return files;
}

/** The trained teacher named by teacher.checkpoint (a checkpoint folder relative to public/), checked against the config. */
export async function loadShippedTeacher(cfg: ExperimentConfig): Promise<WeightRecord[] | null> {
  const rel = cfg.teacher.checkpoint;
  if (!rel) return null;
  const dir = isAbsolute(rel) ? rel : join(ROOT, 'public', rel);
  if (!existsSync(join(dir, 'model.json'))) {
    throw new UserError(
      `teacher.checkpoint: no checkpoint at ${dir} (expected model.json, weights.bin, state.json); regenerate it with the command in public/teachers/README.md`,
    );
  }
  const content = decodeCheckpoint(await readFolder(dir), (raw) => raw);
  const weights = content.models.teacher;
  if (!weights) throw new UserError(`teacher.checkpoint: ${dir} holds no teacher weights`);
  const topo = content.topology as { policy?: Record<string, unknown> } | null;
  const want = modelConfigFor(cfg, createEnvFor(cfg));
  const have = topo?.policy ?? {};
  const diff = Object.entries(want)
    .filter(([k, v]) => have[k] !== v)
    .map(([k, v]) => `${k} ${String(have[k])} ≠ ${String(v)}`);
  if (diff.length)
    throw new UserError(`teacher.checkpoint ${rel} was trained for another model/env: ${diff.join(', ')}`);
  return fromHostRecords(weights);
}

export interface RunOptions {
  folder: RunFolder;
  config: ExperimentConfig;
  resume: CheckpointContent<TrainerState> | null;
  /** prefix shown in the progress bar (sweep label) */
  label?: string;
  progress: boolean;
}

/** Latest checkpoint of a run folder, validated against its config; also trims logs written after it. */
export async function prepareResume(
  dir: string,
): Promise<{ folder: RunFolder; config: ExperimentConfig; resume: CheckpointContent<TrainerState> }> {
  const { folder, config } = RunFolder.open(dir);
  const name = await folder.checkpoints.latest();
  if (!name) throw new UserError(`${dir}: no checkpoint to resume from (checkpoints/LATEST is missing)`);
  const files = await folder.checkpoints.read(name);
  if (!files) throw new UserError(`${dir}: checkpoint ${name} named by LATEST is missing`);
  const resume = decodeCheckpoint(files, (raw) => parseTrainerState(raw, config));
  const i = STAGE_NAMES.indexOf(resume.state.stage);
  folder.truncateForResume(resume.state.stage, resume.state.step, STAGE_NAMES.slice(i + 1));
  return { folder, config, resume };
}

let backendReady: string | null = null;

/** Run one experiment into its folder. Resolves with the summary; Ctrl-C checkpoints and resolves 'interrupted'. */
export async function runExperiment(opts: RunOptions): Promise<RunSummary> {
  const cfg = opts.config;
  if (backendReady !== cfg.runtime.backend) {
    await initBackend(cfg.runtime.backend as BackendName);
    backendReady = cfg.runtime.backend;
  }
  const env = createEnvFor(cfg);
  const shippedTeacher = await loadShippedTeacher(cfg);
  const bar = opts.progress
    ? new cliProgress.SingleBar(
        {
          format: `${opts.label ? `${opts.label} ` : ''}{stage} |{bar}| {value}/{total} ETA {eta_formatted} | success {success} | λ_opd {lambda} | retired {retired}`,
          hideCursor: true,
          etaBuffer: 20,
          noTTYOutput: !process.stderr.isTTY,
          notTTYSchedule: 5000,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  let barStarted = false;
  const payload = { stage: 'start', success: '–', lambda: '–', retired: 'no' };
  const onEvent = (e: TrainerEvent): void => {
    opts.folder.record(e);
    if (!bar) {
      if (e.type === 'warning') process.stderr.write(`warning: ${e.message}\n`);
      return;
    }
    if (e.type === 'stage' && e.status === 'start') {
      payload.stage = e.stage.padEnd(10);
      if (barStarted) bar.setTotal(Math.max(1, e.totalSteps));
      else bar.start(Math.max(1, e.totalSteps), 0, payload);
      barStarted = true;
      bar.update(0, payload);
    } else if (e.type === 'step') {
      const m = e.metrics;
      const s = m['rollout/success_rate'];
      if (s !== undefined) payload.success = `${(100 * s).toFixed(0)}%`;
      if (m['retire_opd/opd_coef'] !== undefined) payload.lambda = String(+m['retire_opd/opd_coef'].toFixed(4));
      if (m['retire_opd/retired'] !== undefined)
        payload.retired = m['retire_opd/retired'] ? `yes (step ${m['retire_opd/trigger_step']})` : 'no';
      bar.update(e.step, payload);
    } else if (e.type === 'warning') {
      bar.stop();
      barStarted = false;
      process.stderr.write(`warning: ${e.message}\n`);
    }
  };
  const trainer = new Trainer({
    config: cfg,
    env,
    engine: createEnginePort(env),
    storage: opts.folder.checkpoints,
    onEvent,
    resume: opts.resume,
    shippedTeacher,
  });
  const removeHandler = onInterrupt(
    () => {
      process.stderr.write(
        '\ninterrupt: finishing the current step, writing a checkpoint (Ctrl-C again to quit at once)\n',
      );
      trainer.requestStop();
    },
    () => process.exit(130),
  );
  try {
    const summary = await trainer.run();
    opts.folder.writeSummary(cfg, summary);
    return summary;
  } finally {
    removeHandler();
    if (barStarted) bar?.stop();
    trainer.dispose();
  }
}

export function oneLine(s: RunSummary): string {
  const pct = (x: number): string => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '–');
  return (
    `${s.status}: test success ${pct(s.test.successRate)}, S_T ${s.teacherPerformance?.toFixed(3) ?? '–'}, ` +
    `trigger step ${s.gate.triggerStep ?? '–'}, teacher forwards skipped ${s.gate.teacherForwardSkipped}, ` +
    `ms/step before/after retirement ${s.stepMs.beforeRetirement?.toFixed(0) ?? '–'}/${s.stepMs.afterRetirement?.toFixed(0) ?? '–'}, ${s.wallSeconds.toFixed(1)} s`
  );
}

/**
 * Export the frozen teacher of a finished run (its checkpoint at the start of the student stage) as a standalone
 * checkpoint folder that teacher.checkpoint can name: model.json + weights.bin (teacher only) + state.json.
 */
export async function exportTeacher(folder: RunFolder, out: string, command: string): Promise<void> {
  const files = await folder.checkpoints.read('student-000000');
  if (!files)
    throw new UserError(
      `${folder.dir}: no checkpoint student-000000 (the frozen teacher); did the teacher stage finish?`,
    );
  const content = decodeCheckpoint(files, (raw) => parseTrainerState(raw));
  const teacher = content.models.teacher;
  if (!teacher) throw new UserError(`${folder.dir}: checkpoint student-000000 holds no teacher`);
  const cfg = content.state.config;
  const exported = await encodeCheckpoint({
    models: { teacher },
    optimizer: {},
    state: {
      teacherPerformance: content.state.teacherPerformance,
      env: cfg.env,
      model: cfg.model,
      seed: cfg.seed,
      regenerate: command,
    },
    topology: content.topology,
  });
  mkdirSync(out, { recursive: true });
  for (const [name, bytes] of exported) writeFileSync(join(out, name), bytes);
}
