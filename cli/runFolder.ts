// A run folder on disk (Node): config.json, metrics.jsonl (student stage: the log the gate replays),
// sft.jsonl and teacher.jsonl (earlier stages), events.jsonl (windows, evaluations, retirement, checkpoints,
// warnings, errors), summary.json, report.md, checkpoints/.
//
// Safety: a new run goes only into a folder that does not exist or is empty (never appended to another run's logs);
// missing folders are created one level at a time below the nearest existing one (Node's recursive mkdir loops
// forever below /proc), and the folder is proven writable before any work. Every file-system failure becomes a
// FileSystemError naming the path. A folder with config.json and no checkpoint yet (Ctrl-C right after it was
// created) is restarted from scratch by --resume, so a run folder is always resumable or cleanly restartable.
import {
  appendFileSync,
  statSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CheckpointError, FileSystemError, RunFolderError, withFsErrors } from '../src/core/errors';
import { resolveConfig, type ExperimentConfig } from '../src/core/experiment/config';
import type { RunSummary } from '../src/core/experiment/summary';
import { formatRunReport } from '../src/core/experiment/report';
import { STAGE_NAMES, type StageName, type TrainerEvent } from '../src/engine/trainer/events';
import { NodeCheckpointStorage } from './nodeCheckpointStorage';
import { acquireRunFolderLock, LOCK_FILE, type RunFolderLock } from './runFolderLock';
import { gateLogProblem, stepLinesProblem, type GateLogState } from '../src/core/runLog/runLogCheck';

export { RunFolderError };

/** Which log file a stage's step metrics go to. */
export function metricsFileFor(stage: StageName): string {
  return stage === 'student' ? 'metrics.jsonl' : `${stage}.jsonl`;
}

/** JSON with non-finite numbers written as null (JSON has no NaN/Infinity). */
function jsonLine(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v));
}

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  withFsErrors(path, 'writing', () => {
    try {
      writeFileSync(tmp, text);
      renameSync(tmp, path);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
  });
}

/** What is at a path: nothing, a folder, something else, or nothing because an ancestor is a file. */
type Kind = 'missing' | 'folder' | 'other' | 'below-file';

function kindOf(path: string): Kind {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') return 'below-file';
    throw FileSystemError.from(e, path, 'looking at the folder');
  }
}

/**
 * Make sure `dir` exists as a folder: create the missing levels one by one below the nearest existing ancestor,
 * refusing a file anywhere on the way. `what` names the flag in messages ("--out").
 */
export function ensureFolder(dir: string, what: string): void {
  const missing: string[] = [];
  let cur = resolve(dir);
  for (;;) {
    const k = kindOf(cur);
    if (k === 'folder') break;
    if (k === 'other')
      throw new RunFolderError(
        cur === resolve(dir)
          ? `${what} ${dir} is a file, not a folder: choose a folder path`
          : `${what} ${dir}: ${cur} is a file, not a folder`,
      );
    missing.unshift(cur);
    const up = dirname(cur);
    if (up === cur) break;
    cur = up;
  }
  for (const m of missing) {
    try {
      mkdirSync(m);
    } catch (e) {
      // e.g. below /proc or /sys: the parent exists but takes no new folders
      if ((e as { code?: string }).code === 'ENOENT')
        throw new RunFolderError(`${what} ${dir}: cannot create ${m} there; choose another location`);
      throw FileSystemError.from(e, m, `creating the folder for ${what}`);
    }
  }
}

/** Prove `dir` writable now (read-only disk, permissions) rather than at the first log line. */
function checkWritable(dir: string, what: string): void {
  const probe = join(dir, `.write-test-${process.pid}`);
  withFsErrors(dir, `checking that ${what} is writable`, () => {
    writeFileSync(probe, 'ok');
    rmSync(probe, { force: true });
  });
}

/** The names in a folder, ignoring our own write probes and the folder's lock (runFolderLock.ts). */
function entriesOf(dir: string): string[] {
  return withFsErrors(dir, 'listing the folder', () => readdirSync(dir)).filter(
    (n) => !n.startsWith('.write-test-') && n !== LOCK_FILE && !n.startsWith(`${LOCK_FILE}.stale-`),
  );
}

/** Every log a run writes (removed when a folder without a checkpoint is restarted). */
const RUN_LOGS = [...STAGE_NAMES.map(metricsFileFor), 'events.jsonl', 'summary.json', 'report.md'];

export class RunFolder {
  readonly checkpoints: NodeCheckpointStorage;
  private held: RunFolderLock | null = null;

  private constructor(readonly dir: string) {
    this.checkpoints = new NodeCheckpointStorage(join(dir, 'checkpoints'));
  }

  /**
   * A fresh run folder: `dir` must not exist or be empty (a folder holding a run needs --resume; any other
   * content is not this run's). Creates it safely, takes its lock (runFolderLock.ts: another process writing it is
   * refused before anything is looked at), checks it is writable, writes config.json.
   */
  static create(dir: string, config: ExperimentConfig): RunFolder {
    if (kindOf(resolve(dir)) === 'other')
      throw new RunFolderError(`--out ${dir} is a file, not a folder: choose a folder path`);
    ensureFolder(dir, '--out');
    const f = new RunFolder(dir);
    f.lock();
    try {
      RunFolder.prepareEmpty(dir, '--out');
      writeAtomic(join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
    } catch (e) {
      f.release();
      throw e;
    }
    return f;
  }

  /**
   * Take this folder's exclusive lock (kept if this folder already holds it; a stale one is taken over with a note on stderr). Throws
   * RunFolderError naming the folder and the owner when another live process holds it. `note` gets the takeover line.
   */
  lock(note?: (text: string) => void): void {
    if (this.held?.holds()) return;
    this.held = acquireRunFolderLock(this.dir, note);
  }

  /** Give the lock back (also done for every held lock when the process exits). */
  release(): void {
    this.held?.release();
    this.held = null;
  }

  /** Check that `dir` is absent or an empty folder, create it, and check it is writable. */
  static prepareEmpty(dir: string, what: string): void {
    const k = kindOf(resolve(dir));
    if (k === 'other') throw new RunFolderError(`${what} ${dir} is a file, not a folder: choose a folder path`);
    if (k === 'folder') {
      const names = entriesOf(dir);
      if (names.includes('config.json'))
        throw new RunFolderError(
          `${what} ${dir} already holds a run (config.json exists): pass --resume ${dir} to continue it, or choose another ${what}`,
        );
      if (names.length > 0)
        throw new RunFolderError(
          `${what} ${dir} is not empty (${names.length} entries such as ${names.slice(0, 3).join(', ')}): choose a new or empty folder`,
        );
    }
    ensureFolder(dir, what);
    checkWritable(dir, what);
  }

  /** An existing run folder and its validated config. */
  static open(dir: string): { folder: RunFolder; config: ExperimentConfig } {
    const k = kindOf(resolve(dir));
    if (k === 'missing' || k === 'below-file') throw new RunFolderError(`--resume ${dir}: no such folder`);
    if (k === 'other') throw new RunFolderError(`--resume ${dir} is a file, not a run folder`);
    const path = join(dir, 'config.json');
    if (kindOf(path) !== 'other') throw new RunFolderError(`${dir} is not a run folder (no config.json)`);
    let raw: unknown;
    const text = withFsErrors(path, 'reading the run config', () => readFileSync(path, 'utf8'));
    try {
      raw = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (e) {
      throw new RunFolderError(`${path}: not valid JSON (${(e as Error).message.slice(0, 80)})`);
    }
    const config = resolveConfig(raw, undefined, path);
    checkWritable(dir, '--resume');
    return { folder: new RunFolder(dir), config };
  }

  appendLine(file: string, value: unknown): void {
    const path = join(this.dir, file);
    withFsErrors(path, 'appending to the run log', () => appendFileSync(path, jsonLine(value) + '\n'));
  }

  /** Route a trainer event to the run's files. */
  record(event: TrainerEvent): void {
    if (event.type === 'step') this.appendLine(metricsFileFor(event.stage), event.metrics);
    else if (event.type !== 'done') this.appendLine('events.jsonl', event);
  }

  /**
   * Before resuming from a checkpoint taken at `step` of `stage`: drop the lines a crashed or interrupted run wrote
   * after that checkpoint (so the resumed log has each step exactly once), and every later stage's log.
   */
  truncateForResume(stage: StageName, step: number, laterStages: readonly StageName[]): void {
    const keep = (file: string, maxStep: number): void => {
      const path = join(this.dir, file);
      if (kindOf(path) !== 'other') return;
      const lines = withFsErrors(path, 'reading the run log', () => readFileSync(path, 'utf8'))
        .split('\n')
        .filter((l) => l.trim() !== '');
      const kept = lines.filter((l) => {
        try {
          return (JSON.parse(l) as { step?: number }).step! <= maxStep;
        } catch {
          return false;
        }
      });
      writeAtomic(path, kept.map((l) => l + '\n').join(''));
    };
    keep(metricsFileFor(stage), step);
    for (const s of laterStages) keep(metricsFileFor(s), -1);
  }

  /**
   * Each stage's log must hold exactly the steps 1 … `steps` (the steps the checkpoint says were done), once each
   * and in order, or a resumed run would write a log that no longer replays to the run. After them a log may hold
   * the later steps a crashed or interrupted run wrote after its checkpoint (increasing, a torn last line; trimmed by
   * truncateForResume) unless `exact` (a finished run: nothing after). Throws a CheckpointError naming FILE:LINE and
   * what was expected. `where` names the checkpoint (or the finished run).
   */
  checkLogsHold(expected: readonly { stage: StageName; steps: number }[], where: string, exact = false): void {
    for (const { stage, steps } of expected) {
      const path = join(this.dir, metricsFileFor(stage));
      const lines =
        kindOf(path) === 'other'
          ? withFsErrors(path, 'reading the run log', () => readFileSync(path, 'utf8')).split('\n')
          : [];
      const problem = stepLinesProblem(lines, steps, exact);
      if (problem === null) continue;
      const fix = exact ? 'the run log was changed while the run wrote it' : 'restore the log, or start the run again';
      if (problem.line === null)
        throw new CheckpointError(
          problem.next === 1
            ? `${path}: missing or empty, but ${where} has done ${steps} ${stage} step(s): ${fix}`
            : `${path}: step ${problem.next} is missing, but ${where} has done ${steps} ${stage} step(s): ${fix}`,
        );
      throw new CheckpointError(
        `${path}:${problem.line}: ${problem.what}, but ${where} has done ${steps} ${stage} step(s): ${fix}`,
      );
    }
  }

  /**
   * The gate statistics a student log wrote (retire_opd/window_index, window_fill, num_evaluated_windows, retired,
   * k_window_mean and k_step) against the gate state of a checkpoint taken at student step `step`: the line of each
   * completed window's end step must show that window (its K̄ₘ), the line of `step` the checkpoint's window count,
   * fill, evaluations, retirement and last K, and the pending K values the lines after the last window. Throws a
   * CheckpointError naming FILE:LINE, the field and both values.
   */
  checkGateLog(gate: GateLogState, step: number, where: string): void {
    const path = join(this.dir, metricsFileFor('student'));
    if (step === 0 || kindOf(path) !== 'other') return;
    const text = withFsErrors(path, 'reading the run log', () => readFileSync(path, 'utf8'));
    const problem = gateLogProblem(text.split('\n'), gate, step);
    if (problem)
      throw new CheckpointError(
        `${path}:${problem.line}: ${problem.what}, but ${where}'s gate state has ${problem.expected}: the log does not replay to the checkpoint; restore the log, or resume from an earlier checkpoint (write its name into checkpoints/LATEST)`,
      );
  }

  /**
   * Before resuming (under the lock): remove what a killed process left half-written — the temp files of an atomic
   * write (`summary.json.tmp-PID`), write probes, and the checkpoints' temp folders (NodeCheckpointStorage). Returns
   * their paths relative to the folder.
   */
  async removeLeftovers(): Promise<string[]> {
    const removed: string[] = [];
    for (const n of withFsErrors(this.dir, 'listing the folder', () => readdirSync(this.dir))) {
      if (!/\.tmp-\d+$/.test(n) && !/^\.write-test-\d+$/.test(n)) continue;
      const path = join(this.dir, n);
      withFsErrors(path, 'removing a leftover of an interrupted write', () => rmSync(path, { force: true }));
      removed.push(n);
    }
    for (const n of await this.checkpoints.removeLeftovers()) removed.push(join('checkpoints', n));
    return removed;
  }

  /** A folder whose run wrote no checkpoint yet: remove its logs so it starts again from scratch. */
  restartFromScratch(): void {
    for (const f of RUN_LOGS) {
      const path = join(this.dir, f);
      withFsErrors(path, 'removing a log of the restarted run', () => rmSync(path, { force: true }));
    }
  }

  writeSummary(config: ExperimentConfig, summary: RunSummary): void {
    writeAtomic(join(this.dir, 'summary.json'), jsonLine(summary) + '\n');
    writeAtomic(join(this.dir, 'report.md'), formatRunReport(config, summary));
  }
}
