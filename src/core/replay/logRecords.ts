// The common shape every log format is read into before the gate replays it, and the error type for bad input.
import { LogError } from '../errors';
import { printable, quoteInput } from './quoteInput';

/** A log file as read by the caller (the CLI reads the disk; the app reads a dropped file). */
export interface LogSource {
  /** Shown in error messages as FILE in `FILE:LINE: …`. */
  readonly name: string;
  readonly text: string;
}

/** A log file read piece by piece (the CLI streams the disk; the page may stream a File): text chunks in order. */
export interface LogStream {
  readonly name: string;
  readonly chunks: AsyncIterable<string> | Iterable<string>;
}

export const LOG_FORMATS = ['jsonl', 'verl', 'csv', 'trl'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * One logged row as a parser hands it on while streaming: a step and its metrics as a plain object (values as
 * logged: numbers, NaN/±Infinity, strings, null, …).
 */
export interface RawRecord {
  /** 1-based line where the row starts. */
  readonly line: number;
  readonly step: number;
  readonly values: Readonly<Record<string, unknown>>;
  /** A key of `values` that is not a metric (a flat JSON line's own "step"), left there to spare a copy per row. */
  readonly skip?: string;
}

/** Where a streaming parser delivers its rows, in file order. */
export type RecordSink = (record: RawRecord) => void;

/**
 * Bad input the user can fix; printed as `FILE:LINE: message` (`FILE: message` when line is 0: the whole file).
 * A LogError, so every CLI maps it to exit 2 and one line.
 */
export class ReplayInputError extends LogError {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(line > 0 ? `${printable(file)}:${line}: ${detail}` : `${printable(file)}: ${detail}`);
    this.name = 'ReplayInputError';
  }
}

/**
 * The most metrics one logged row may hold. A training log's row has tens to a few hundred (a verl step ≈ 60–200); a
 * row of 200,000 keys is not a log line, and reading it would hold the replay for seconds per row: refused with
 * FILE:LINE (a CSV at its header, other formats at the row).
 */
export const MAX_METRICS_PER_ROW = 10_000;

/** The refusal of a row (or CSV header) with more than MAX_METRICS_PER_ROW metrics (`count` when known). */
export function tooManyMetrics(file: string, line: number, count?: number): ReplayInputError {
  const what = count === undefined ? `more than ${MAX_METRICS_PER_ROW} metrics` : `${count} metrics`;
  return new ReplayInputError(
    file,
    line,
    `${what} on one row, at most ${MAX_METRICS_PER_ROW} (not a training log's row: keep the metrics the gate reads)`,
  );
}

const STEP_TEXT = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A step must be a non-negative integer (an integer-valued float such as pandas' "12.0" is accepted); returns it
 * or throws naming the line. A blank step ("", " ") is a missing step, never step 0.
 */
export function checkStep(file: string, line: number, step: unknown): number {
  if (step === undefined || step === null || (typeof step === 'string' && step.trim() === '')) {
    throw new ReplayInputError(file, line, 'missing step');
  }
  let value = step;
  if (typeof step === 'string') value = STEP_TEXT.test(step.trim()) ? Number(step.trim()) : Number.NaN;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ReplayInputError(file, line, `step must be a non-negative integer, got ${quoteInput(step)}`);
  }
  return value === 0 ? 0 : value; // -0 → 0
}

/** Within one file steps may repeat (several rows of one step) but never go back. Fed row by row. */
export class StepOrder {
  private previous: number | undefined;
  constructor(private readonly file: string) {}
  check(line: number, step: number): void {
    if (this.previous !== undefined && step < this.previous) {
      throw new ReplayInputError(this.file, line, `step ${step} is out of order (after step ${this.previous})`);
    }
    this.previous = step;
  }
}
