// JSON-lines logs, one object per line:
//   jsonl — flat objects with a "step" key: the simple `{"step": k, "gap": g, "val": S}` form and the lab's own
//           metrics files (`{"step": k, "opd/teacher_student_gap_mean": g, "val/success_rate": S, …}`);
//   verl  — verl's file logger, `{"step": k, "data": {"skillsd/teacher_student_gap_mean": g, …}}`.
import { checkStep, checkStepOrder, type LogRecord, ReplayInputError } from './logRecords';
import { JsonSyntaxError, parsePythonJson } from './pythonJson';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseJsonLines(file: string, text: string, format: 'jsonl' | 'verl'): LogRecord[] {
  const records: LogRecord[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = parsePythonJson(raw);
    } catch (error) {
      throw new ReplayInputError(file, line, error instanceof JsonSyntaxError ? error.message : 'not valid JSON');
    }
    if (!isObject(parsed)) throw new ReplayInputError(file, line, 'expected a JSON object on each line');
    const step = checkStep(file, line, parsed.step);
    let metrics: Record<string, unknown>;
    if (format === 'verl') {
      if (!isObject(parsed.data)) {
        throw new ReplayInputError(file, line, 'expected a verl file-logger line {"step": k, "data": {...}}');
      }
      metrics = parsed.data;
    } else {
      metrics = Object.fromEntries(Object.entries(parsed).filter(([key]) => key !== 'step'));
    }
    records.push({ file, line, step, values: new Map(Object.entries(metrics)) });
  });
  checkStepOrder(records);
  return records;
}

/** Whether a JSON-lines text looks like verl's file logger (judged on its first non-blank line). */
export function looksLikeVerl(text: string): boolean {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '');
  if (first === undefined) return false;
  try {
    const parsed = parsePythonJson(first);
    return isObject(parsed) && 'step' in parsed && isObject(parsed.data);
  } catch {
    return false;
  }
}
