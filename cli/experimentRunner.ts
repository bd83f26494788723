// Shared by cli/experiment.ts and cli/sweep.ts (presets: presetFiles.ts): the shipped teacher, one run of the
// trainer into a run folder with a progress bar, Ctrl-C handling, and resume. Node only.
import cliProgress from 'cli-progress';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import {
  BackendError,
  CheckpointError,
  FileSystemError,
  RunFolderError,
  UserError,
  withFsErrors,
} from '../src/core/errors';
import type { ExperimentConfig } from '../src/core/experiment/config';
import { createEnvFor } from '../src/core/experiment/envFactory';
import { checkpointName } from '../src/core/runLog/checkpointName';
import type { RunSummary } from '../src/core/experiment/summary';
import { initBackend, type BackendName } from '../src/engine/backend';
import { SOFTWARE_RENDERER, webgpuDeviceInfo, type WebgpuDeviceInfo } from '../src/engine/webgpuDevice';
import { parameterSpecs } from '../src/engine/model';
import {
  decodeCheckpoint,
  encodeCheckpoint,
  sealCheckpoint,
  verifyCheckpoint,
  type CheckpointContent,
  type CheckpointFiles,
} from '../src/engine/trainer/checkpoint';
import { createEnginePort } from '../src/engine/trainer/engineAdapter';
import { STAGE_NAMES, type StageName, type TrainerEvent } from '../src/engine/trainer/events';
import { NodeCheckpointStorage } from './nodeCheckpointStorage';
import { modelConfigFor } from '../src/engine/modelConfig';
import { checkShippedTeacher, TEACHER_FILES } from '../src/engine/trainer/shippedTeacher';
import type { FollowerSpec } from '../src/engine/trainer/followers';
import { Trainer } from '../src/engine/trainer/trainer';
import { checkCheckpointContent, parseTrainerState, type TrainerState } from '../src/engine/trainer/trainerState';
import type { WeightRecord } from '../src/engine/weights';
import { ROOT } from './presetFiles';
import { ensureFolder, RunFolder } from './runFolder';
import type { GateLogState } from '../src/core/runLog/runLogCheck';
import { InterruptLatch, onInterrupt, SIGNAL_EXIT_CODE } from './interrupt';
import { METRIC } from '../src/core/runLog/metricKeys';

/** A user error: printed as one line (no stack), exit code 2 (core/errors.ts). */
export { UserError };

export async function readFolder(dir: string): Promise<CheckpointFiles> {
  const files: CheckpointFiles = new Map();
  for (const f of withFsErrors(dir, 'reading the checkpoint', () => readdirSync(dir))) {
    const path = join(dir, f);
    files.set(f, new Uint8Array(withFsErrors(path, 'reading the checkpoint', () => readFileSync(path))));
  }
  return files;
}

/** runtime.backend that cannot run in Node, refused before any work. */
function checkBackendForNode(cfg: ExperimentConfig): void {
  if (cfg.runtime.backend === 'webgl')
    throw new BackendError(
      'runtime.backend=webgl needs a browser (WebGL on an OffscreenCanvas); from the command line use --backend cpu, wasm or webgpu',
    );
}

let backendReady: string | null = null;

/**
 * Start the config's backend (once per process); BackendUnavailableError is a BackendError (exit 2). On webgpu,
 * `log` gets one line naming the adapter, since Dawn may have found a GPU or only SwiftShader's CPU emulation.
 */
export async function startBackend(
  cfg: ExperimentConfig,
  log: (text: string) => void = (t) => void process.stderr.write(t),
): Promise<void> {
  checkBackendForNode(cfg);
  if (backendReady !== cfg.runtime.backend) {
    await initBackend(cfg.runtime.backend as BackendName);
    backendReady = cfg.runtime.backend;
    const gpu = cfg.runtime.backend === 'webgpu' ? webgpuDeviceInfo() : null;
    if (gpu) log(`${webgpuAdapterLine(gpu)}\n`);
  }
}

/** "webgpu adapter: <vendor> <device> (<description>)", and a warning when it is a CPU emulation. */
export function webgpuAdapterLine(gpu: WebgpuDeviceInfo): string {
  const name = [gpu.vendor, gpu.device, gpu.architecture].filter((s) => s !== '').join(' ') || 'unnamed';
  const detail = gpu.description !== '' ? ` (${gpu.description})` : '';
  const software = gpu.isFallbackAdapter || SOFTWARE_RENDERER.test(`${name} ${gpu.description}`);
  return `webgpu adapter: ${name}${detail}${
    software
      ? ' — a CPU emulation, slower than --backend wasm; VK_ICD_FILENAMES naming a GPU driver manifest selects a GPU'
      : ''
  }`;
}

/** The trained teacher named by teacher.checkpoint (a checkpoint folder relative to public/), checked against the config. */
export async function loadShippedTeacher(cfg: ExperimentConfig): Promise<WeightRecord[] | null> {
  const rel = cfg.teacher.checkpoint;
  if (!rel) return null;
  const dir = isAbsolute(rel) ? rel : join(ROOT, 'public', rel);
  let isCheckpoint = false;
  try {
    isCheckpoint = readdirSync(dir).includes('model.json');
  } catch {
    isCheckpoint = false;
  }
  if (!isCheckpoint) {
    throw new CheckpointError(
      `teacher.checkpoint: no checkpoint at ${dir} (expected ${TEACHER_FILES.join(', ')}); regenerate it with the command in public/teachers/README.md`,
    );
  }
  return checkShippedTeacher(
    await readFolder(dir),
    cfg,
    createEnvFor(cfg),
    rel,
    NodeCheckpointStorage.prototype.sha256,
  );
}

export interface RunOptions {
  folder: RunFolder;
  config: ExperimentConfig;
  resume: CheckpointContent<TrainerState> | null;
  /** prefix shown in the progress bar (sweep label) */
  label?: string;
  progress: boolean;
  /** the process's Ctrl-C latch (installed before the folder was made); default: one for this run */
  interrupt?: InterruptLatch;
  /** where warnings go (default: process.stderr) */
  log?: (text: string) => void;
  /** runs to carry along this run's student stage (a sweep's followers, src/engine/trainer/followers.ts) */
  followers?: (() => Promise<FollowerSpec[]>) | null;
  /** `resume` is where a follower left its leader: its folder already holds its events up to there */
  continuation?: boolean;
}

/** Checkpoints of a run folder, oldest first (for messages). */
async function checkpointNames(folder: RunFolder): Promise<string[]> {
  return folder.checkpoints.list();
}

/**
 * Read, verify and decode checkpoint `name` of a run folder: manifest (every file's length and SHA-256), the
 * manifest's stage/step against state.json and the name, the saved config against the run's (with `fork`, only its
 * prefix: a sweep's prefix fork, trainerState.ts), and every weight and optimizer entry the (stage, step) implies.
 * Throws CheckpointError naming the checkpoint and what to do.
 */
export async function loadRunCheckpoint(
  folder: RunFolder,
  name: string,
  config?: ExperimentConfig,
  fork = false,
): Promise<CheckpointContent<TrainerState>> {
  const where = join(folder.dir, 'checkpoints', name);
  const others = (await checkpointNames(folder)).filter((n) => n !== name);
  const hint = others.length
    ? ` (other checkpoints: ${others.slice(-4).join(', ')}; write one of their names into checkpoints/LATEST to resume from it)`
    : '';
  try {
    const files = await folder.checkpoints.read(name);
    if (!files) throw new CheckpointError(`${where}: checkpoint named by LATEST is missing`);
    const manifest = await verifyCheckpoint(files, where, {
      sha256: folder.checkpoints.sha256.bind(folder.checkpoints),
      requireManifest: true,
    });
    const content = decodeCheckpoint(files, (raw) => parseTrainerState(raw, config, fork));
    const { stage, step } = content.state;
    const expectedName = checkpointName(stage, step);
    if (manifest && (manifest.stage !== stage || manifest.step !== step))
      throw new CheckpointError(
        `${where}: manifest.json says ${manifest.stage} step ${manifest.step}, state.json says ${stage} step ${step}`,
      );
    if (expectedName !== name)
      throw new CheckpointError(`${where}: holds ${stage} step ${step}, which belongs in ${expectedName}`);
    const cfg = content.state.config;
    checkCheckpointContent(content, parameterSpecs(modelConfigFor(cfg, createEnvFor(cfg))), where);
    return content;
  } catch (e) {
    if (e instanceof CheckpointError) throw new CheckpointError(`${e.message}${hint}`);
    throw e;
  }
}

/**
 * The run in `dir` and where to continue it: its latest checkpoint, verified and checked against its config (the
 * logs written after it are trimmed), or — when the run wrote no checkpoint yet (stopped right after it started) —
 * `resume: null` with its logs removed, so it starts again from scratch in the same folder. Takes the folder's lock
 * first (runFolderLock.ts: a second process on the same folder is refused), then removes what a killed writer left
 * half-written (one line to `log` naming them). Its logs must replay to the checkpoint: each step once and in order,
 * the gate statistics the student log wrote equal to the checkpoint's gate state (else CheckpointError, FILE:LINE).
 */
export async function prepareResume(
  dir: string,
  log: (text: string) => void = (t) => void process.stderr.write(t),
): Promise<{ folder: RunFolder; config: ExperimentConfig; resume: CheckpointContent<TrainerState> | null }> {
  const { folder, config } = RunFolder.open(dir);
  folder.lock(log);
  try {
    const leftovers = await folder.removeLeftovers();
    if (leftovers.length > 0)
      log(
        `note: ${dir}: removed ${leftovers.length} leftover(s) of a write that was killed: ${leftovers.slice(0, 4).join(', ')}${leftovers.length > 4 ? ', …' : ''}\n`,
      );
    const name = await folder.checkpoints.latest();
    if (!name) {
      const existing = await checkpointNames(folder);
      if (existing.length > 0)
        throw new CheckpointError(
          `${dir}: checkpoints/LATEST is missing; write the name of the checkpoint to resume from into it (available: ${existing.slice(-4).join(', ')})`,
        );
      folder.restartFromScratch();
      return { folder, config, resume: null };
    }
    const resume = await loadRunCheckpoint(folder, name, config);
    const where = join(dir, 'checkpoints', name);
    folder.checkLogsHold(stepsDone(config, resume.state), where);
    // the gate state against the student log: at the checkpoint's student step, or its last one after the stage
    const gate: GateLogState | undefined = resume.state.schedule?.gate;
    const at = STAGE_NAMES.indexOf(resume.state.stage) - STAGE_NAMES.indexOf('student');
    if (gate && at >= 0) folder.checkGateLog(gate, at === 0 ? resume.state.step : config.student.steps, where);
    const i = STAGE_NAMES.indexOf(resume.state.stage);
    folder.truncateForResume(resume.state.stage, resume.state.step, STAGE_NAMES.slice(i + 1));
    return { folder, config, resume };
  } catch (e) {
    folder.release();
    throw e;
  }
}

/**
 * The steps of each logged stage a checkpoint at (stage, step) has done: every step of the stages before it (the
 * teacher stage has none with a shipped teacher or schedule none), `step` of its own.
 */
export function stepsDone(
  cfg: ExperimentConfig,
  at: { stage: StageName; step: number },
): { stage: StageName; steps: number }[] {
  const total: Partial<Record<StageName, number>> = {
    sft: cfg.sft.steps,
    teacher: cfg.teacher.checkpoint !== '' || cfg.student.schedule === 'none' ? 0 : cfg.teacher.steps,
    student: cfg.student.steps,
  };
  const now = STAGE_NAMES.indexOf(at.stage);
  return (['sft', 'teacher', 'student'] as const).map((stage) => {
    const i = STAGE_NAMES.indexOf(stage);
    return { stage, steps: i < now ? (total[stage] ?? 0) : i === now ? at.step : 0 };
  });
}

/** Run one experiment into its folder. Resolves with the summary; Ctrl-C checkpoints and resolves 'interrupted'. */
export async function runExperiment(opts: RunOptions): Promise<RunSummary> {
  const cfg = opts.config;
  const log = opts.log ?? ((t: string) => void process.stderr.write(t));
  await startBackend(cfg, log);
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
      if (e.type === 'warning') log(`warning: ${e.message}\n`);
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
      const s = m[METRIC.rolloutSuccessRate];
      if (s !== undefined) payload.success = `${(100 * s).toFixed(0)}%`;
      if (m['retire_opd/opd_coef'] !== undefined) payload.lambda = String(+m['retire_opd/opd_coef'].toFixed(4));
      if (m['retire_opd/retired'] !== undefined)
        payload.retired = m['retire_opd/retired'] ? `yes (step ${m['retire_opd/trigger_step']})` : 'no';
      bar.update(e.step, payload);
    } else if (e.type === 'warning') {
      bar.stop();
      barStarted = false;
      log(`warning: ${e.message}\n`);
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
    followers: opts.followers ?? null,
    continuation: opts.continuation ?? false,
  });
  const latch = opts.interrupt ?? new InterruptLatch();
  const removeHandler = opts.interrupt ? () => undefined : installInterrupt(latch);
  latch.attach(trainer);
  try {
    const summary = await trainer.run();
    opts.folder.writeSummary(cfg, summary);
    // "completed" only for a log that replays to the run: every step of every stage once, in order, nothing after
    if (summary.status === 'completed')
      opts.folder.checkLogsHold(stepsDone(cfg, { stage: 'evaluation', step: 0 }), 'the finished run', true);
    return summary;
  } catch (e) {
    if (e instanceof FileSystemError)
      throw new FileSystemError(
        e.path,
        e.code,
        `${e.message}; the run folder is intact up to its last checkpoint: continue with npm run experiment -- --resume ${opts.folder.dir}`,
      );
    throw e;
  } finally {
    latch.detach();
    removeHandler();
    if (barStarted) bar?.stop();
    trainer.dispose();
  }
}

/**
 * Ctrl-C or SIGTERM → the latch (stop at the next step boundary with a checkpoint); a later one quits at once with
 * its signal's exit code (130 or 143).
 */
export function installInterrupt(latch: InterruptLatch): () => void {
  return onInterrupt(
    (signal) => {
      const what = signal === 'SIGTERM' ? 'terminate (SIGTERM)' : 'interrupt';
      process.stderr.write(
        `\n${what}: finishing the current step, writing a checkpoint (${signal === 'SIGTERM' ? 'SIGTERM' : 'Ctrl-C'} again to quit at once)\n`,
      );
      latch.fire(signal);
    },
    (signal) => process.exit(SIGNAL_EXIT_CODE[signal]),
  );
}

export function oneLine(s: RunSummary): string {
  const pct = (x: number): string => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '–');
  return (
    `${s.status}: test success ${pct(s.test.successRate)}, S_T ${s.teacherPerformance?.toFixed(3) ?? '–'}, ` +
    `trigger step ${s.gate.triggerStep ?? '–'}, teacher forwards skipped ${s.gate.teacherForwardSkipped}, ` +
    `ms/step before/after retirement ${s.stepMs.beforeRetirement?.toFixed(0) ?? '–'}/${s.stepMs.afterRetirement?.toFixed(0) ?? '–'}, ${s.wallSeconds.toFixed(1)} s`
  );
}

/** Files an export folder may already hold (a previous export of a teacher, regenerated in place). */
const EXPORT_FILES = new Set(['model.json', 'weights.bin', 'state.json', 'manifest.json']);

/**
 * Export the frozen teacher of a finished run (its checkpoint at the start of the student stage) as a standalone
 * checkpoint folder that teacher.checkpoint can name: model.json + weights.bin (teacher only) + state.json +
 * manifest.json. `out` must be new, empty, or a previous export.
 */
export async function exportTeacher(folder: RunFolder, out: string, command: string): Promise<void> {
  const names = await folder.checkpoints.list();
  if (!names.includes('student-000000'))
    throw new CheckpointError(
      `${folder.dir}: no checkpoint student-000000 (the frozen teacher); did the teacher stage finish?`,
    );
  const content = await loadRunCheckpoint(folder, 'student-000000');
  const teacher = content.models.teacher;
  if (!teacher) throw new CheckpointError(`${folder.dir}: checkpoint student-000000 holds no teacher`);
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
  await sealCheckpoint(exported, { stage: 'student', step: 0 }, folder.checkpoints.sha256.bind(folder.checkpoints));
  let present: string[] = [];
  try {
    present = readdirSync(resolve(out));
  } catch {
    present = [];
  }
  const foreign = present.filter((n) => !EXPORT_FILES.has(n));
  if (foreign.length)
    throw new RunFolderError(
      `--export-teacher ${out} holds other files (${foreign.slice(0, 3).join(', ')}): choose a new or empty folder`,
    );
  ensureFolder(out, '--export-teacher');
  for (const [name, bytes] of exported) {
    const path = join(out, name);
    withFsErrors(path, 'exporting the teacher', () => writeFileSync(path, bytes));
  }
}
