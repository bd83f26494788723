// The common shape every log format is read into before the gate replays it, and the error type for bad input.

/** A log file as read by the caller (the CLI reads the disk; the app reads a dropped file). */
export interface LogSource {
  /** Shown in error messages as FILE in `FILE:LINE: …`. */
  readonly name: string;
  readonly text: string;
}

export const LOG_FORMATS = ['jsonl', 'verl', 'csv', 'trl'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** One logged row: a step and its metrics (values as logged: numbers, NaN/±Infinity, strings, null, …). */
export interface LogRecord {
  readonly file: string;
  /** 1-based line where the row starts. */
  readonly line: number;
  readonly step: number;
  readonly values: ReadonlyMap<string, unknown>;
}

/** Bad input the user can fix; printed as `FILE:LINE: message`. */
export class ReplayInputError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
    this.name = 'ReplayInputError';
  }
}

/** A step must be a non-negative integer; returns it or throws naming the line. */
export function checkStep(file: string, line: number, step: unknown): number {
  if (step === undefined || step === null || step === '') {
    throw new ReplayInputError(file, line, 'missing step');
  }
  const value = typeof step === 'string' ? Number(step.trim()) : step;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ReplayInputError(file, line, `step must be a non-negative integer, got ${JSON.stringify(step)}`);
  }
  return value;
}

/** Within one file steps may repeat (several rows of one step) but never go back. */
export function checkStepOrder(records: readonly LogRecord[]): void {
  for (let i = 1; i < records.length; i++) {
    const prev = records[i - 1];
    const cur = records[i];
    if (prev !== undefined && cur !== undefined && cur.step < prev.step) {
      throw new ReplayInputError(cur.file, cur.line, `step ${cur.step} is out of order (after step ${prev.step})`);
    }
  }
}
