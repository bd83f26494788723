// TRL / Hugging Face Trainer's `trainer_state.json`: `{"log_history": [{"step": k, "loss": …}, {"step": k,
// "eval_…": …}, …], …}`. Training and evaluation entries of one step are separate objects; both become records.
import { checkStep, type RecordSink, ReplayInputError, StepOrder } from './logRecords';
import { JsonSyntaxError, parsePythonJson } from './pythonJson';

/**
 * 1-based line on which each element of the "log_history" array starts, found by scanning the text (JSON.parse
 * keeps no positions). Returns [] when the array cannot be located.
 */
function logHistoryLines(text: string): number[] {
  const key = /"log_history"\s*:\s*\[/.exec(text);
  if (key === null) return [];
  const starts: number[] = [];
  let line = text.slice(0, key.index).split('\n').length;
  for (const ch of key[0]) if (ch === '\n') line += 1;
  let depth = 0;
  let inString = false;
  for (let i = key.index + key[0].length; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\n') line += 1;
    if (inString) {
      if (ch === '\\') i += 1;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') {
      if (depth === 0) starts.push(line);
      depth += 1;
    } else if (ch === '}' || ch === ']') {
      if (depth === 0) break; // the closing bracket of log_history
      depth -= 1;
    }
  }
  return starts;
}

/** Parse a whole trainer_state.json, handing each log_history entry to the sink (in file order). */
export function readTrainerState(file: string, text: string, sink: RecordSink): void {
  let parsed: unknown;
  try {
    parsed = parsePythonJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new ReplayInputError(file, error.line, error.message);
    throw error;
  }
  const history = (parsed as { log_history?: unknown } | null)?.log_history;
  if (!Array.isArray(history)) {
    throw new ReplayInputError(file, 1, 'not a trainer_state.json: expected an object with a "log_history" array');
  }
  const lines = logHistoryLines(text);
  const lineOf = (i: number) => (lines.length === history.length ? (lines[i] ?? 1) : 1);
  const order = new StepOrder(file);
  history.forEach((entry: unknown, i) => {
    const line = lineOf(i);
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new ReplayInputError(file, line, `log_history[${i}] is not an object`);
    }
    const { step: rawStep, ...values } = entry as Record<string, unknown>;
    const step = checkStep(file, line, rawStep);
    order.check(line, step);
    sink({ line, step, values });
  });
}
