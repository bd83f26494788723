// JSON-lines logs, one object per line:
//   jsonl — flat objects with a "step" key: the simple `{"step": k, "gap": g, "val": S}` form and the lab's own
//           metrics files (`{"step": k, "opd/teacher_student_gap_mean": g, "val/success_rate": S, …}`);
//   verl  — verl's file logger, `{"step": k, "data": {"skillsd/teacher_student_gap_mean": g, …}}`.
// Read line by line as chunks arrive: memory holds one line, whatever the file's size.
import { LineSplitter, LineTooLongError } from './lineSplitter';
import { checkStep, type RecordSink, ReplayInputError, StepOrder } from './logRecords';
import { JsonSyntaxError, parsePythonJson } from './pythonJson';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An incremental JSON-lines parser: push text chunks, then end(); each row goes to the sink as it is read. */
export class JsonLinesParser {
  private readonly lines: LineSplitter;
  private readonly order: StepOrder;

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
    if (this.format === 'verl' && !isObject(parsed.data)) {
      throw new ReplayInputError(this.file, line, 'expected a verl file-logger line {"step": k, "data": {...}}');
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
