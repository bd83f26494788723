// A run folder's text files (as cli/runFolder.ts writes them) read into a RecordedRun for playback
// (runPlayback.ts): each stage's metrics lines (JSON null back to NaN, as the trainer emitted them), the events in
// order, the summary. Errors name the file and line.
import { resolveConfig, type ExperimentConfig } from '../experiment/config';
import type { RunSummary } from '../experiment/summary';
import type { RecordedRun } from './runPlayback';
import { TRAINED_STAGES, type TrainedStage } from './runLogFold';
import { withSkippedFlag } from './skippedTeacherForwards';
import type { MetricsLine, TrainerEvent } from './trainerEvent';

/** The file each stage's step lines live in. */
export const METRICS_FILE: Record<TrainedStage, string> = {
  sft: 'sft.jsonl',
  teacher: 'teacher.jsonl',
  student: 'metrics.jsonl',
};

/** A run folder's files by name; a missing log reads as empty. */
export type RunFolderTexts = Partial<Record<string, string>>;

export class RecordedRunError extends Error {
  override name = 'RecordedRunError';
}

function jsonLines(where: string, text: string | undefined): unknown[] {
  const out: unknown[] = [];
  (text ?? '').split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push(JSON.parse(line));
    } catch (e) {
      throw new RecordedRunError(`${where}:${i + 1}: not valid JSON (${(e as Error).message.slice(0, 80)})`);
    }
  });
  return out;
}

function metricsLine(raw: unknown): MetricsLine {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) out[k] = typeof v === 'number' ? v : NaN;
  return out as MetricsLine;
}

/** The recording in a run folder `where` (for messages) and its validated config. */
export function readRecordedRun(where: string, files: RunFolderTexts): { config: ExperimentConfig; run: RecordedRun } {
  const configText = files['config.json'];
  if (configText === undefined) throw new RecordedRunError(`${where}/config.json: missing`);
  let raw: unknown;
  try {
    raw = JSON.parse(configText);
  } catch (e) {
    throw new RecordedRunError(`${where}/config.json: not valid JSON (${(e as Error).message.slice(0, 80)})`);
  }
  const config = resolveConfig(raw, undefined, `${where}/config.json`);
  const steps = Object.fromEntries(
    TRAINED_STAGES.map((s) => [s, jsonLines(`${where}/${METRICS_FILE[s]}`, files[METRICS_FILE[s]]).map(metricsLine)]),
  ) as Record<TrainedStage, MetricsLine[]>;
  // a recording made before the per-step flag logged the running count under its name
  steps.student = withSkippedFlag(steps.student);
  const events = jsonLines(`${where}/events.jsonl`, files['events.jsonl']) as TrainerEvent[];
  const summaryText = files['summary.json'];
  const summary = summaryText ? (jsonLines(`${where}/summary.json`, summaryText)[0] as RunSummary) : null;
  return { config, run: { steps, events, summary } };
}
