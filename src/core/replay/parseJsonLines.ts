// JSON-lines logs, one object per line:
//   jsonl — flat objects with a "step" key: the simple `{"step": k, "gap": g, "val": S}` form and the lab's own
//           metrics files (`{"step": k, "opd/teacher_student_gap_mean": g, "val/success_rate": S, …}`);
//   verl  — verl's file logger, `{"step": k, "data": {"skillsd/teacher_student_gap_mean": g, …}}`.
// Read line by line as chunks arrive: memory holds one line, whatever the file's size. One format per file: a line
// whose shape differs from the file's first line (a verl line in a flat file, or the reverse) is refused, never
// half-read.
import { LineSplitter, LineTooLongError } from './lineSplitter';
import { checkStep, type RecordSink, ReplayInputError, StepOrder } from './logRecords';
import { JsonSyntaxError, parsePythonJson } from './pythonJson';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An incremental JSON-lines parser: push text chunks, then end(); each row goes to the sink as it is read. */
export class JsonLinesParser {
  private readonly lines: LineSplitter;
  private readonly order: StepOrder;
  /** The first line's shape and number: every later line must have the same shape. */
  private shape: { verl: boolean; line: number } | undefined;

  constructor(
    private readonly file: string,
    private readonly format: 'jsonl' | 'verl',
    private readonly sink: RecordSink,
  ) {
    this.order = new StepOrder(file);
    this.lines = new LineSplitter((text, line) => this.parseLine(text, line));
  }

  push(chunk: string): void {
    this.guard(() => this.lines.push(chunk));
  }

  end(): void {
    this.guard(() => this.lines.end());
  }

  private guard(f: () => void): void {
    try {
      f();
    } catch (error) {
      if (error instanceof LineTooLongError) throw new ReplayInputError(this.file, error.line, error.message);
      throw error;
    }
  }

  private parseLine(raw: string, line: number): void {
    if (raw.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = parsePythonJson(raw);
    } catch (error) {
      throw new ReplayInputError(this.file, line, error instanceof JsonSyntaxError ? error.message : 'not valid JSON');
    }
    if (!isObject(parsed)) throw new ReplayInputError(this.file, line, 'expected a JSON object on each line');
    const step = checkStep(this.file, line, parsed.step);
    const verl = isObject(parsed.data);
    this.shape ??= { verl, line };
    if (this.format === 'verl' && !verl) {
      throw new ReplayInputError(
        this.file,
        line,
        this.shape.line === line
          ? 'expected a verl file-logger line {"step": k, "data": {...}}'
          : `a flat JSON line, but line ${this.shape.line} is a verl file-logger line {"step": k, "data": {...}}: ` +
              'one format per file',
      );
    }
    if (this.format === 'jsonl' && verl !== this.shape.verl) {
      throw new ReplayInputError(
        this.file,
        line,
        verl
          ? `a verl file-logger line {"step": k, "data": {...}}, but line ${this.shape.line} is a flat JSON line: ` +
              'one format per file'
          : `a flat JSON line, but line ${this.shape.line} is a verl file-logger line: one format per file`,
      );
    }
    this.order.check(line, step);
    if (this.format === 'verl') this.sink({ line, step, values: parsed.data as Record<string, unknown> });
    else this.sink({ line, step, values: parsed, skip: 'step' });
  }
}

/** Whether one line is a verl file-logger object {"step": …, "data": {…}}. */
export function verlObject(line: string): boolean {
  try {
    const parsed = parsePythonJson(line);
    return isObject(parsed) && 'step' in parsed && isObject(parsed.data);
  } catch {
    return false;
  }
}
