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

/** The names in a folder, ignoring our own write probes. */
function entriesOf(dir: string): string[] {
  return withFsErrors(dir, 'listing the folder', () => readdirSync(dir)).filter((n) => !n.startsWith('.write-test-'));
}

/** Every log a run writes (removed when a folder without a checkpoint is restarted). */
const RUN_LOGS = [...STAGE_NAMES.map(metricsFileFor), 'events.jsonl', 'summary.json', 'report.md'];

export class RunFolder {
  readonly checkpoints: NodeCheckpointStorage;

  private constructor(readonly dir: string) {
    this.checkpoints = new NodeCheckpointStorage(join(dir, 'checkpoints'));
  }

  /**
   * A fresh run folder: `dir` must not exist or be empty (a folder holding a run needs --resume; any other
   * content is not this run's). Creates it safely, checks it is writable, writes config.json.
   */
  static create(dir: string, config: ExperimentConfig): RunFolder {
    RunFolder.prepareEmpty(dir, '--out');
    const f = new RunFolder(dir);
    writeAtomic(join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
    return f;
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
   * Before resuming: each stage's log must hold every step from 1 to `steps` (the steps the checkpoint says were
   * done), or the resumed run would write a log that no longer replays to the run. Throws a CheckpointError naming
   * the file and the first missing step. `where` names the checkpoint.
   */
  checkLogsHold(expected: readonly { stage: StageName; steps: number }[], where: string): void {
    for (const { stage, steps } of expected) {
      if (steps === 0) continue;
      const path = join(this.dir, metricsFileFor(stage));
      const logged = new Set<number>();
      if (kindOf(path) === 'other') {
        const text = withFsErrors(path, 'reading the run log', () => readFileSync(path, 'utf8'));
        for (const line of text.split('\n')) {
          try {
            const step = (JSON.parse(line) as { step?: unknown } | null)?.step;
            if (typeof step === 'number') logged.add(step);
          } catch {
            // a torn or foreign line: dropped by truncateForResume, and its step counts as missing here
          }
        }
      }
      let missing = 0;
      for (let k = 1; k <= steps && missing === 0; k++) if (!logged.has(k)) missing = k;
      if (missing === 0) continue;
      throw new CheckpointError(
        logged.size === 0
          ? `${path}: missing or empty, but ${where} has done ${steps} ${stage} step(s): restore the log, or start the run again`
          : `${path}: step ${missing} is missing, but ${where} has done ${steps} ${stage} step(s): restore the log, or start the run again`,
      );
    }
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
