// Replaying the retirement gate over a real training log: read one or more log files (any supported format),
// join them on the step, pick the gap and validation series, and drive a gate schedule through them exactly as the
// trainer would (a step's gap before its validation). Pure: the caller reads the files and prints the lines.
import type { GateConfigInput } from '../gateConfig';
import { LambdaSchedule } from '../lambdaSchedule';
import { type LogFormat, type LogRecord, type LogSource, ReplayInputError } from './logRecords';
import { looksLikeVerl, parseJsonLines } from './parseJsonLines';
import { parseCsv } from './parseCsv';
import { parseTrainerState } from './parseTrainerState';
import { parsePythonJson } from './pythonJson';

export const REPLAY_SCHEDULES = ['adaptive', 'alignment-only', 'competence-only'] as const;
export type ReplaySchedule = (typeof REPLAY_SCHEDULES)[number];

export interface ReplayOptions {
  /** Gate config without opd_coef (the replay uses 1: λ's size does not affect when the gate fires). */
  readonly gate: Omit<GateConfigInput, 'opd_coef'>;
  readonly schedule?: ReplaySchedule;
  readonly gapKey?: string;
  readonly valKey?: string;
  /** Applies to every file; detected per file when absent. */
  readonly format?: LogFormat;
}

/** Default key candidates per format, first present wins. verl's RetireOPD logs the gap under skillsd/. */
const GAP_KEYS: Record<LogFormat, readonly string[]> = {
  jsonl: ['gap', 'opd/teacher_student_gap_mean', 'skillsd/teacher_student_gap_mean'],
  verl: ['skillsd/teacher_student_gap_mean', 'opd/teacher_student_gap_mean'],
  csv: ['gap', 'skillsd/teacher_student_gap_mean', 'opd/teacher_student_gap_mean'],
  trl: ['opd/teacher_student_gap_mean', 'skillsd/teacher_student_gap_mean', 'teacher_student_gap_mean'],
};
const VAL_KEYS: Record<LogFormat, readonly string[]> = {
  jsonl: ['val', 'val/success_rate'],
  verl: ['val/success_rate'],
  csv: ['val', 'val/success_rate'],
  trl: ['eval_success_rate', 'val/success_rate', 'eval_val/success_rate'],
};
const TRIGGER_KEY = 'retire_opd/trigger_step';
const SKIPPED_KEY = 'retire_opd/teacher_forward_skipped';

/** Decide a file's format from its content: trainer_state.json, verl file logger, flat JSON lines, else CSV. */
export function detectFormat(source: LogSource): LogFormat {
  const text = source.text.trimStart();
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      const whole = parsePythonJson(text);
      if (typeof whole === 'object' && whole !== null && 'log_history' in whole) return 'trl';
    } catch {
      // several JSON objects: JSON lines
    }
    return looksLikeVerl(text) ? 'verl' : 'jsonl';
  }
  return 'csv';
}

export function parseLog(source: LogSource, format: LogFormat): LogRecord[] {
  if (source.text.trim() === '') throw new ReplayInputError(source.name, 1, 'empty file');
  switch (format) {
    case 'jsonl':
    case 'verl':
      return parseJsonLines(source.name, source.text, format);
    case 'csv':
      return parseCsv(source.name, source.text);
    case 'trl':
      return parseTrainerState(source.name, source.text);
  }
}

const normalise = (key: string) =>
  key
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');

/** Finds a metric in records: by its exact name when the log has it, else ignoring case and / vs _ (TensorBoard). */
class KeyMatcher {
  private readonly exact: boolean;
  private readonly normalised: string;
  constructor(
    readonly key: string,
    records: readonly LogRecord[],
  ) {
    this.exact = records.some((r) => r.values.has(key));
    this.normalised = normalise(key);
  }
  get(record: LogRecord): unknown {
    if (this.exact) return record.values.get(this.key);
    for (const [k, v] of record.values) if (normalise(k) === this.normalised) return v;
    return undefined;
  }
  presentIn(records: readonly LogRecord[]): boolean {
    return records.some((r) => this.get(r) !== undefined && this.get(r) !== null);
  }
}

function resolveKey(
  what: 'gap' | 'val',
  requested: string | undefined,
  candidates: readonly string[],
  records: readonly LogRecord[],
  firstFile: string,
): KeyMatcher {
  const keysSeen = [...new Set(records.flatMap((r) => [...r.values.keys()]))];
  const shown = keysSeen.slice(0, 12).join(', ') + (keysSeen.length > 12 ? `, … (${keysSeen.length} keys)` : '');
  if (requested !== undefined) {
    const matcher = new KeyMatcher(requested, records);
    if (!matcher.presentIn(records)) {
      throw new ReplayInputError(
        firstFile,
        1,
        `--${what}-key "${requested}" is not a key of this log (keys: ${shown})`,
      );
    }
    return matcher;
  }
  for (const key of candidates) {
    const matcher = new KeyMatcher(key, records);
    if (matcher.presentIn(records)) return matcher;
  }
  throw new ReplayInputError(
    firstFile,
    1,
    `no ${what === 'gap' ? 'teacher-student gap' : 'validation score'} found (looked for ${candidates.join(', ')}); ` +
      `name it with --${what}-key (keys: ${shown})`,
  );
}

interface Located {
  readonly value: number;
  readonly file: string;
  readonly line: number;
}

/** One step of the joined log. */
interface ReplayStep {
  readonly step: number;
  /** The step's gap g, absent when the step logged none (or only a placeholder after the run's own retirement). */
  gap?: Located;
  val?: Located;
  /** The logged run had already retired its teacher at this step (its logged gap, if any, is a placeholder). */
  teacherSkippedInLog: boolean;
}

function finiteValue(record: LogRecord, what: string, key: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') {
    throw new ReplayInputError(
      record.file,
      record.line,
      `step ${record.step}: ${what} "${key}" is not a number: ${JSON.stringify(value)}`,
    );
  }
  if (!Number.isFinite(value)) {
    throw new ReplayInputError(
      record.file,
      record.line,
      `step ${record.step}: ${what} "${key}" is not finite: ${value}`,
    );
  }
  return value;
}

export interface JoinedLog {
  readonly steps: ReplayStep[];
  readonly gapKey: string;
  readonly valKey: string;
  /** The first step the logged run retired at (from retire_opd/trigger_step), null if it never did, undefined if
   *  the log does not carry the metric. */
  readonly logTriggerStep: number | null | undefined;
}

/** Join records of all files on the step and pick out the gap and validation series. */
function joinLog(records: readonly LogRecord[], gapKey: KeyMatcher, valKey: KeyMatcher): JoinedLog {
  const ordered = [...records].sort((a, b) => a.step - b.step); // stable: file order, then line order
  const byStep = new Map<number, ReplayStep>();
  const trigger = new KeyMatcher(TRIGGER_KEY, records);
  const skipped = new KeyMatcher(SKIPPED_KEY, records);
  let logTriggerStep: number | null | undefined;
  for (const record of ordered) {
    let entry = byStep.get(record.step);
    if (entry === undefined) {
      entry = { step: record.step, teacherSkippedInLog: false };
      byStep.set(record.step, entry);
    }
    const gap = finiteValue(record, 'gap', gapKey.key, gapKey.get(record));
    const val = finiteValue(record, 'validation score', valKey.key, valKey.get(record));
    for (const [what, value] of [
      ['gap', gap],
      ['val', val],
    ] as const) {
      if (value === undefined) continue;
      const previous = entry[what];
      if (previous !== undefined) {
        throw new ReplayInputError(
          record.file,
          record.line,
          `step ${record.step} has a second ${what === 'gap' ? 'gap' : 'validation score'} (the first is at ${previous.file}:${previous.line})`,
        );
      }
      entry[what] = { value, file: record.file, line: record.line };
    }
    const skip = skipped.get(record);
    if (typeof skip === 'number' && skip > 0) entry.teacherSkippedInLog = true;
    const t = trigger.get(record);
    if (typeof t === 'number' && Number.isFinite(t)) {
      if (logTriggerStep === undefined) logTriggerStep = null;
      if (t >= 0 && logTriggerStep === null) logTriggerStep = t;
    }
  }
  return { steps: [...byStep.values()], gapKey: gapKey.key, valKey: valKey.key, logTriggerStep };
}

export interface EvaluationLine {
  readonly type: 'evaluation';
  readonly step: number;
  readonly window_index: number;
  readonly k_window_mean: number | null;
  readonly alignment_progress: number | null;
  readonly competence_ratio: number | null;
  readonly criterion_valid: boolean;
  readonly retired: boolean;
  readonly window_end_step: number;
  readonly student_performance: number;
}

export interface SummaryLine {
  readonly type: 'summary';
  readonly retired: boolean;
  readonly trigger_step: number | null;
  /** Completed windows of W gaps. */
  readonly windows: number;
  /** Windows evaluated by a validation. */
  readonly evaluations: number;
  /** Training steps after the trigger: teacher forward passes a retiring run would not have made. */
  readonly teacher_forward_steps_saved: number;
  readonly schedule: ReplaySchedule;
  readonly format: string;
  readonly gap_key: string;
  readonly val_key: string;
  /** Training steps (steps with a gap) and validations in the log. */
  readonly steps: number;
  readonly validations: number;
  /** Present only when the log carries retire_opd/trigger_step: the run's own trigger (null: never retired). */
  readonly log_trigger_step?: number | null;
  readonly agrees_with_log?: boolean;
  /** Present only when > 0: gaps the replay needed but the log holds only as post-retirement placeholders. */
  readonly placeholder_gaps_ignored?: number;
}

export interface ReplayResult {
  readonly evaluations: EvaluationLine[];
  readonly summary: SummaryLine;
}

const nullIfNaN = (x: number) => (Number.isFinite(x) ? x : null);

/** Read, join and replay. Throws ReplayInputError (FILE:LINE) on bad input, GateConfigError on a bad config. */
export function replayGate(sources: readonly LogSource[], options: ReplayOptions): ReplayResult {
  const scheduleName = options.schedule ?? 'adaptive';
  // Validate the gate config first, so a bad number is reported before the files are read.
  const schedule = new LambdaSchedule(scheduleName, { opd_coef: 1, ...options.gate });
  const first = sources[0];
  if (first === undefined) throw new Error('no log files given');
  const formats = sources.map((s) => options.format ?? detectFormat(s));
  const records = sources.flatMap((s, i) => parseLog(s, formats[i] ?? 'jsonl'));
  if (records.length === 0) throw new ReplayInputError(first.name, 1, 'no records in the log');
  const format = formats[0] ?? 'jsonl';
  const gapKey = resolveKey('gap', options.gapKey, GAP_KEYS[format], records, first.name);
  const valKey = resolveKey('val', options.valKey, VAL_KEYS[format], records, first.name);
  const log = joinLog(records, gapKey, valKey);

  const evaluations: EvaluationLine[] = [];
  let placeholders = 0;
  let trainingSteps = 0;
  let validations = 0;
  for (const s of log.steps) {
    if (s.gap !== undefined || s.teacherSkippedInLog) {
      trainingSteps += 1;
      const plan = schedule.beginStep(s.step);
      if (plan.teacherNeeded) {
        if (s.gap !== undefined && !s.teacherSkippedInLog) schedule.observeGap(s.step, s.gap.value);
        else placeholders += 1;
      }
    }
    if (s.val !== undefined) {
      validations += 1;
      const e = schedule.validate(s.step, s.val.value);
      if (e !== null) {
        evaluations.push({
          type: 'evaluation',
          step: e.step,
          window_index: e.window_index,
          k_window_mean: nullIfNaN(e.k_window_mean),
          alignment_progress: nullIfNaN(e.alignment_progress),
          competence_ratio: nullIfNaN(e.competence_ratio),
          criterion_valid: e.criterion_valid,
          retired: e.retired,
          window_end_step: e.window_end_step,
          student_performance: e.student_performance,
        });
      }
    }
  }
  const gate = schedule.gate;
  const summary: SummaryLine = {
    type: 'summary',
    retired: gate.retired,
    trigger_step: gate.triggerStep,
    windows: gate.completedWindows.length,
    evaluations: gate.numEvaluatedWindows,
    teacher_forward_steps_saved: gate.teacherForwardSkipped,
    schedule: scheduleName,
    format: [...new Set(formats)].join('+'),
    gap_key: log.gapKey,
    val_key: log.valKey,
    steps: trainingSteps,
    validations,
    ...(log.logTriggerStep === undefined
      ? {}
      : { log_trigger_step: log.logTriggerStep, agrees_with_log: log.logTriggerStep === gate.triggerStep }),
    ...(placeholders > 0 ? { placeholder_gaps_ignored: placeholders } : {}),
  };
  return { evaluations, summary };
}

/** The replay's stdout: one JSON line per evaluation, then the summary. */
export function replayLines(result: ReplayResult): string[] {
  return [...result.evaluations, result.summary].map((line) => JSON.stringify(line));
}
