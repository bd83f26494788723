// A run folder on disk (Node): config.json, metrics.jsonl (student stage: the log the gate replays),
// sft.jsonl and teacher.jsonl (earlier stages), events.jsonl (windows, evaluations, retirement, checkpoints,
// warnings, errors), summary.json, report.md, checkpoints/.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig, type ExperimentConfig } from '../src/core/experiment/config';
import type { RunSummary } from '../src/core/experiment/summary';
import { formatRunReport } from '../src/core/experiment/report';
import type { StageName, TrainerEvent } from '../src/engine/trainer/events';
import { NodeCheckpointStorage } from '../src/engine/trainer/nodeCheckpointStorage';

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
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** A user error about a run folder (exists already, is not a run, unreadable config). */
export class RunFolderError extends Error {}

export class RunFolder {
  readonly checkpoints: NodeCheckpointStorage;

  private constructor(readonly dir: string) {
    this.checkpoints = new NodeCheckpointStorage(join(dir, 'checkpoints'));
  }

  /** A fresh run folder; refuses a folder that already holds a run (use --resume or another --out). */
  static create(dir: string, config: ExperimentConfig): RunFolder {
    if (existsSync(join(dir, 'config.json'))) {
      throw new RunFolderError(
        `${dir} already holds a run (config.json exists): pass --resume ${dir} to continue it, or choose another --out`,
      );
    }
    mkdirSync(dir, { recursive: true });
    const f = new RunFolder(dir);
    writeAtomic(join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
    return f;
  }

  /** An existing run folder and its validated config. */
  static open(dir: string): { folder: RunFolder; config: ExperimentConfig } {
    const path = join(dir, 'config.json');
    if (!existsSync(path)) throw new RunFolderError(`${dir} is not a run folder (no config.json)`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new RunFolderError(`${path}: not valid JSON (${(e as Error).message})`);
    }
    return { folder: new RunFolder(dir), config: resolveConfig(raw, undefined, path) };
  }

  appendLine(file: string, value: unknown): void {
    appendFileSync(join(this.dir, file), jsonLine(value) + '\n');
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
      if (!existsSync(path)) return;
      const lines = readFileSync(path, 'utf8')
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

  writeSummary(config: ExperimentConfig, summary: RunSummary): void {
    writeAtomic(join(this.dir, 'summary.json'), jsonLine(summary) + '\n');
    writeAtomic(join(this.dir, 'report.md'), formatRunReport(config, summary));
  }
}
