// Replaying the retirement gate over a real training log: read one or more log files (any supported format),
// join them on the step, pick the gap and validation series, and drive a gate schedule through them exactly as the
// trainer would (a step's gap before its validation). Pure: the caller reads the files and prints the lines.
// Files may be given whole (replayGate) or as streams of text chunks (replayGateStream): either way only the
// columns the gate can use are kept, a few bytes per step (see RecordStore), so a log of any size fits in memory.
// (~400 lines on purpose: the whole-file, streaming and push replays share one join-and-drive loop, kept together.)
import type { GateConfigInput } from '../gateConfig';
import { LambdaSchedule } from '../lambdaSchedule';
import { GATED_SCHEDULE_KINDS, type GatedScheduleKind } from '../methodVocabulary';
import { LogReader } from './logReader';
import { type LogFormat, type LogSource, type LogStream, ReplayInputError } from './logRecords';
import { quoteInput } from './quoteInput';
import { type Column, RecordStore } from './recordStore';
import type { EvaluationLine, ReplayResult, SummaryLine } from './replayResult';
import { METRIC } from '../runLog/metricKeys';
import type { GateEvidence } from '../retirementGate';
import { cadenceWarning, typicalGapsPerValidation } from './windowCadence';

export type { EvaluationLine, ReplayResult, SummaryLine } from './replayResult';
export { replayLines, replayTextBlocks } from './replayResult';

/** The schedules a replay can drive: those whose retirement the gate decides (core/methodVocabulary.ts). */
export const REPLAY_SCHEDULES = GATED_SCHEDULE_KINDS;
export type ReplaySchedule = GatedScheduleKind;

export interface ReplayOptions {
  /** Gate config without lambdaOpd (the replay uses 1: λ's size does not affect when the gate fires). */
  readonly gate: Omit<GateConfigInput, 'lambdaOpd'>;
  readonly schedule?: ReplaySchedule;
  readonly gapKey?: string;
  readonly valKey?: string;
  /** Applies to every file; detected per file when absent. */
  readonly format?: LogFormat;
}

/** Default key candidates per format, first present wins. verl's RetireOPD logs the gap under skillsd/. */
const GAP_KEYS: Record<LogFormat, readonly string[]> = {
  jsonl: ['gap', METRIC.opdTeacherStudentGapMean, 'skillsd/teacher_student_gap_mean'],
  verl: ['skillsd/teacher_student_gap_mean', METRIC.opdTeacherStudentGapMean],
  csv: ['gap', 'skillsd/teacher_student_gap_mean', METRIC.opdTeacherStudentGapMean],
  trl: [METRIC.opdTeacherStudentGapMean, 'skillsd/teacher_student_gap_mean', 'teacher_student_gap_mean'],
};
const VAL_KEYS: Record<LogFormat, readonly string[]> = {
  jsonl: ['val', METRIC.valSuccessRate],
  verl: [METRIC.valSuccessRate],
  csv: ['val', METRIC.valSuccessRate],
  trl: ['eval_success_rate', METRIC.valSuccessRate, 'eval_val/success_rate'],
};
const TRIGGER_KEY = 'retire_opd/trigger_step';
const SKIPPED_KEY = 'retire_opd/teacher_forward_skipped';
/** Largest |gap| or |score| accepted: a token-mean log-ratio or a success rate is far smaller; beyond this a
 *  window's mean could overflow. */
const MAX_METRIC_MAGNITUDE = 1e12;

/** A series of finite numbers of one metric, ordered by (step, row): typed arrays, one entry per row. */
interface Series {
  readonly key: string;
  readonly rows: Uint32Array;
  readonly values: Float64Array;
}

/** One file of an incremental replay: push its chunks in order (text, or UTF-8 bytes as File.stream() gives), then
 *  end() it. */
export interface ReplayFileSink {
  push(chunk: string | Uint8Array): void;
  end(): void;
}

/**
 * The incremental replay the CLI and the tab share: open each file in turn, push its chunks, end it, then finish()
 * joins the files and replays. Reads any number of files (whole or in chunks) into a RecordStore, so memory holds
 * a chunk and the gate's columns. The gate config is checked on construction, so a bad number is reported before
 * any file is read. Throws ReplayInputError (FILE:LINE) on bad input, from push, end or finish.
 */
export class GateReplayReader {
  private readonly schedule: LambdaSchedule;
  private readonly scheduleName: ReplaySchedule;
  private readonly store: RecordStore;
  private readonly formats: LogFormat[] = [];

  constructor(private readonly options: ReplayOptions) {
    this.scheduleName = options.schedule ?? 'adaptive';
    this.schedule = new LambdaSchedule(this.scheduleName, { lambdaOpd: 1, ...options.gate });
    const keys = [...Object.values(GAP_KEYS), ...Object.values(VAL_KEYS)].flat();
    if (options.gapKey !== undefined) keys.push(options.gapKey);
    if (options.valKey !== undefined) keys.push(options.valKey);
    this.store = new RecordStore(keys, TRIGGER_KEY, SKIPPED_KEY);
  }

  /** Start reading a file: push its chunks in order, then end() it, before opening the next. */
  openFile(name: string): ReplayFileSink {
    this.store.addFile(name);
    const reader = new LogReader(
      name,
      (raw) => this.store.add(raw.line, raw.step, raw.values, raw.skip),
      this.options.format,
    );
    // Bytes are decoded as Node's file streams decode: a byte-order mark kept (LogReader drops it), bad bytes U+FFFD.
    let decoder: TextDecoder | undefined;
    return {
      push: (chunk) => {
        if (typeof chunk === 'string') reader.push(chunk);
        else reader.push((decoder ??= new TextDecoder('utf-8', { ignoreBOM: true })).decode(chunk, { stream: true }));
      },
      end: () => {
        if (decoder !== undefined) reader.push(decoder.decode());
        reader.end();
        this.formats.push(reader.format ?? 'jsonl');
      },
    };
  }

  finish(): ReplayResult {
    const store = this.store;
    const first = store.files[0];
    if (first === undefined) throw new Error('no log files given');
    if (store.rowCount === 0) throw new ReplayInputError(first, 1, 'no records in the log');
    const format = this.formats[0] ?? 'jsonl';
    const gapKey = resolveKey(store, 'gap', this.options.gapKey, GAP_KEYS[format], first);
    const valKey = resolveKey(store, 'val', this.options.valKey, VAL_KEYS[format], first);
    const gaps = metricSeries(store, gapKey, 'gap');
    const vals = metricSeries(store, valKey, 'validation score');
    if (store.files.length > 1) checkOverlap(store, gaps, vals);
    return this.replay(gaps, vals, store.skippedSteps(), store.loggedTrigger());
  }

  /** Walk the steps in order (a step's gap before its validation) through the gate schedule. */
  private replay(
    gaps: Series,
    vals: Series,
    skippedSteps: Float64Array,
    logTriggerStep: number | null | undefined,
  ): ReplayResult {
    const store = this.store;
    const warnings: string[] = [];
    const schedule = this.schedule;
    const evaluations: EvaluationLine[] = [];
    let placeholders = 0;
    let trainingSteps = 0;
    let validations = 0;
    let g = 0;
    let v = 0;
    let k = 0;
    // how fresh each decision's evidence was (windowCadence.ts): training steps between validations, stale reads
    const stepsPerValidation: number[] = [];
    let stepsSinceValidation = 0;
    let decisive: GateEvidence | null = null;
    let decided = false;
    let stalest: GateEvidence | null = null;
    let stale = 0;
    const stepOf = (series: Series, i: number) =>
      i < series.rows.length ? store.step(series.rows[i] as number) : Number.POSITIVE_INFINITY;
    for (;;) {
      const gapStep = stepOf(gaps, g);
      const valStep = stepOf(vals, v);
      const skipStep = k < skippedSteps.length ? (skippedSteps[k] as number) : Number.POSITIVE_INFINITY;
      const step = Math.min(gapStep, valStep, skipStep);
      if (step === Number.POSITIVE_INFINITY) break;
      const gap = gapStep === step ? (gaps.values[g++] as number) : undefined;
      // The logged run had already retired its teacher here: its logged gap, if any, is a placeholder.
      const skipped = skipStep === step;
      if (skipped) k += 1;
      if (gap !== undefined || skipped) {
        trainingSteps += 1;
        stepsSinceValidation += 1;
        const plan = schedule.beginStep(step);
        if (plan.teacherNeeded) {
          if (gap !== undefined && !skipped) {
            // A non-finite gap is refused only where the gate would read it: after the logged run's retirement
            // (skipped) or the replay's own, the teacher did not run and the logged value is a placeholder.
            if (!Number.isFinite(gap)) {
              const row = gaps.rows[g - 1] as number;
              throw new ReplayInputError(
                store.file(row),
                store.line(row),
                `step ${step}: gap ${quoteInput(gaps.key)} is not finite: ${gap}`,
              );
            }
            schedule.observeGap(step, gap);
          } else placeholders += 1;
        }
      }
      if (valStep === step) {
        validations += 1;
        const e = schedule.validate(step, vals.values[v++] as number);
        stepsPerValidation.push(stepsSinceValidation);
        stepsSinceValidation = 0;
        const evidence = e === null ? null : schedule.gate.evidence;
        if (evidence !== null && e !== null) {
          // the decision: the evaluation that retired the teacher, else the latest one
          if (!decided) decisive = evidence;
          if (e.triggered) decided = true;
          if (evidence.age_steps > 0) {
            stale += 1;
            if (stalest === null || evidence.age_steps > stalest.age_steps) stalest = evidence;
          }
        }
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
    const lastGapStep = gaps.rows.length > 0 ? store.step(gaps.rows[gaps.rows.length - 1] as number) : null;
    if (store.files.length > 1 && gate.triggerStep !== null && lastGapStep !== null && gate.triggerStep > lastGapStep) {
      warnings.push(
        `retired at step ${gate.triggerStep}, after the last gap step ${lastGapStep}: the validation file runs past ` +
          'the gap file (are both from the same run, and complete?)',
      );
    }
    const cited = decisive !== null && decisive.age_steps > 0 ? decisive : stalest;
    const cadence =
      cited === null
        ? null
        : cadenceWarning({
            windowSize: gate.config.windowSize,
            gapsPerValidation: typicalGapsPerValidation(stepsPerValidation),
            stale,
            evaluations: evaluations.length,
            cited,
          });
    if (cadence !== null) warnings.push(cadence);
    const summary: SummaryLine = {
      type: 'summary',
      retired: gate.retired,
      trigger_step: gate.triggerStep,
      windows: gate.completedWindows.length,
      evaluations: gate.numEvaluatedWindows,
      teacher_forward_steps_saved: gate.teacherForwardSkipped,
      schedule: this.scheduleName,
      format: [...new Set(this.formats)].join('+'),
      gap_key: gaps.key,
      val_key: vals.key,
      steps: trainingSteps,
      validations,
      ...(logTriggerStep === undefined
        ? {}
        : { log_trigger_step: logTriggerStep, agrees_with_log: logTriggerStep === gate.triggerStep }),
      ...(decisive === null ? {} : { evidence: decisive }),
      ...(placeholders > 0 ? { placeholder_gaps_ignored: placeholders } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    };
    return { evaluations, summary };
  }
}

/** The key used for the gap or the validation score: the one asked for, else the first candidate the log has. */
function resolveKey(
  store: RecordStore,
  what: 'gap' | 'val',
  requested: string | undefined,
  candidates: readonly string[],
  firstFile: string,
): string {
  const present = (key: string) =>
    store.columnsFor(key).some((c) => {
      for (let e = 0; e < c.length; e++) if (c.value(e) !== null) return true;
      return false;
    });
  if (requested !== undefined) {
    if (!present(requested)) {
      throw new ReplayInputError(
        firstFile,
        1,
        `--${what}-key ${quoteInput(requested)} is not a key of this log (keys: ${store.keysShown()})`,
      );
    }
    return requested;
  }
  const found = candidates.find(present);
  if (found !== undefined) return found;
  throw new ReplayInputError(
    firstFile,
    1,
    `no ${what === 'gap' ? 'teacher-student gap' : 'validation score'} found (looked for ${candidates.join(', ')}); ` +
      `name it with --${what}-key (keys: ${store.keysShown()})`,
  );
}

/** Entries of `columns` as typed arrays in (step, row) order; `accept` maps a value to a number or drops it. */
function collect(
  store: RecordStore,
  key: string,
  columns: readonly Column[],
  accept: (row: number, value: unknown) => number | undefined,
): Series {
  const only = columns.length === 1 ? columns[0] : undefined;
  if (only !== undefined && only.allNumbers) {
    // One column of numbers only, accepted whole (the common case): its own arrays, no copy.
    const numbers = only.numbersView();
    let all = true;
    for (let e = 0; e < numbers.length && all; e++) {
      const x = accept(only.row(e), numbers[e]);
      all = x !== undefined && Object.is(x, numbers[e]);
    }
    if (all) return sortedSeries(store, key, only.rowsView(), numbers);
  }
  const total = columns.reduce((n, c) => n + c.length, 0);
  const rows = new Uint32Array(total);
  const values = new Float64Array(total);
  let n = 0;
  for (const column of columns) {
    for (let e = 0; e < column.length; e++) {
      const row = column.row(e);
      const x = accept(row, column.value(e));
      if (x === undefined) continue;
      rows[n] = row;
      values[n] = x;
      n += 1;
    }
  }
  return sortedSeries(store, key, rows.subarray(0, n), values.subarray(0, n));
}

/** The series in (step, row) order: as given when already so (one file), else sorted copies. */
function sortedSeries(store: RecordStore, key: string, rows: Uint32Array, values: Float64Array): Series {
  const n = rows.length;
  const before = (a: number, b: number) => store.step(a) - store.step(b) || a - b;
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) sorted = before(rows[i - 1] as number, rows[i] as number) < 0;
  if (sorted) return { key, rows, values };
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => before(rows[a] as number, rows[b] as number));
  return {
    key,
    rows: Uint32Array.from(order, (i) => rows[i] as number),
    values: Float64Array.from(order, (i) => values[i] as number),
  };
}

/** The gap or validation series: finite numbers, at most one per step, from one column per row. */
function metricSeries(store: RecordStore, key: string, what: 'gap' | 'validation score'): Series {
  const columns = store.columnsFor(key);
  const where = (row: number) => [store.file(row), store.line(row)] as const;
  const series = collect(store, key, columns, (row, value) => {
    if (value === undefined || value === null) return undefined;
    const step = store.step(row);
    if (typeof value !== 'number') {
      throw new ReplayInputError(
        ...where(row),
        `step ${step}: ${what} ${quoteInput(key)} is not a number: ${quoteInput(value)}`,
      );
    }
    if (!Number.isFinite(value)) {
      // A gap is judged in the replay itself: after retirement a NaN gap is a placeholder the gate never reads.
      if (what === 'gap') return value;
      throw new ReplayInputError(...where(row), `step ${step}: ${what} ${quoteInput(key)} is not finite: ${value}`);
    }
    if (Math.abs(value) > MAX_METRIC_MAGNITUDE) {
      throw new ReplayInputError(
        ...where(row),
        `step ${step}: ${what} ${quoteInput(key)} is implausibly large: ${value} ` +
          `(|value| ≤ ${MAX_METRIC_MAGNITUDE} expected)`,
      );
    }
    return value;
  });
  const { rows } = series;
  for (let i = 1; i < rows.length; i++) {
    const previous = rows[i - 1] as number;
    const row = rows[i] as number;
    if (row === previous) {
      throw new ReplayInputError(
        ...where(row),
        `two columns match ${quoteInput(key)} (${columns.map((c) => quoteInput(c.key)).join(', ')}): ` +
          `name one with --${what === 'gap' ? 'gap' : 'val'}-key`,
      );
    }
    if (store.step(row) === store.step(previous)) {
      const [file, line] = where(previous);
      throw new ReplayInputError(
        ...where(row),
        `step ${store.step(row)} has a second ${what} (the first is at ${file}:${line})`,
      );
    }
  }
  return series;
}

/**
 * Joined files must describe the same steps: validation steps wholly outside the span of the gap steps mean the
 * files come from different runs (or ranges), and a replay of them would be meaningless — refused.
 */
function checkOverlap(store: RecordStore, gaps: Series, vals: Series): void {
  const span = (s: Series) => [store.step(s.rows[0] as number), store.step(s.rows[s.rows.length - 1] as number)];
  const [gapFirst, gapLast] = span(gaps) as [number, number];
  const [valFirst, valLast] = span(vals) as [number, number];
  if (valLast < gapFirst || valFirst > gapLast) {
    const at = vals.rows[0] as number;
    throw new ReplayInputError(
      store.file(at),
      store.line(at),
      `the validation steps (${valFirst}–${valLast}) do not overlap the gap steps (${gapFirst}–${gapLast}, ` +
        `${store.file(gaps.rows[0] as number)}): joined files must come from the same run and range of steps`,
    );
  }
}

const nullIfNaN = (x: number) => (Number.isFinite(x) ? x : null);

/** Read, join and replay whole texts. Throws ReplayInputError (FILE:LINE) on bad input, GateConfigError on a bad
 *  config (checked first). */
export function replayGate(sources: readonly LogSource[], options: ReplayOptions): ReplayResult {
  const run = new GateReplayReader(options);
  if (sources.length === 0) throw new Error('no log files given');
  for (const source of sources) {
    const file = run.openFile(source.name);
    file.push(source.text);
    file.end();
  }
  return run.finish();
}

/** The same over streams of text chunks (the CLI's file streams, a page's File.stream()): bounded memory. */
export async function replayGateStream(sources: readonly LogStream[], options: ReplayOptions): Promise<ReplayResult> {
  const run = new GateReplayReader(options);
  if (sources.length === 0) throw new Error('no log files given');
  for (const source of sources) {
    const file = run.openFile(source.name);
    for await (const chunk of source.chunks) file.push(chunk);
    file.end();
  }
  return run.finish();
}
