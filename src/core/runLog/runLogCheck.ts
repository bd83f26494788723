// What makes a run folder's step log unreplayable, found line by line (pure functions over the log's lines; the CLI
// reads the files in cli/runFolder.ts). The order of a stage's steps is stepLines.ts's rule, as for the tab's stored
// lines. Line numbers are 1-based, as an editor shows them, so a message reads FILE:LINE.
//
// A stage's log (metrics.jsonl, sft.jsonl, teacher.jsonl) holds one JSON line per step: steps 1, 2, … in order, each
// once. A run stopped after its checkpoint at step s may have written steps s+1, s+2, … (and a torn last line) that
// a resume trims; a duplicated or out-of-order step, or a step missing before s, makes the log replay to another run.
// The student log's retire_opd/* columns are the gate's own statistics; they must agree with the gate state saved in
// the checkpoint, or the resumed log's windows and K̄ₘ would not be the ones the gate acted on.
import { stepOrderFault } from './stepLines';

/** What is wrong with a log: the line (null: the log ends early), what was found, and the step expected next. */
export interface LogProblem {
  line: number | null;
  what: string;
  next: number;
}

/** The step of a log line, or a reason it has none. */
function stepOf(line: string): { step: number } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { error: 'not a JSON line' };
  }
  const step = (value as { step?: unknown } | null)?.step;
  if (typeof step !== 'number' || !Number.isInteger(step)) return { error: 'a line without an integer "step"' };
  return { step };
}

/**
 * The first problem of a step log's `lines` (the file split at '\n') that must hold steps 1 … `steps` in order,
 * each once; after them only increasing later steps and a torn last line, or nothing at all when `exact`.
 */
export function stepLinesProblem(lines: readonly string[], steps: number, exact: boolean): LogProblem | null {
  let next = 1;
  let last = 0;
  // the last non-blank line: the only one a crash may have torn
  let lastIndex = -1;
  lines.forEach((l, i) => {
    if (l.trim() !== '') lastIndex = i;
  });
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    if (text.trim() === '') continue;
    const line = i + 1;
    const read = stepOf(text);
    const inPrefix = next <= steps;
    if ('error' in read) {
      if (!inPrefix && !exact && i === lastIndex) continue; // a torn line after the checkpoint: trimmed on resume
      return { line, what: `${read.error} (expected ${inPrefix ? `the line of step ${next}` : 'nothing more'})`, next };
    }
    const { step } = read;
    if (inPrefix) {
      const fault = stepOrderFault(next - 1, step);
      if (fault === null) {
        next++;
        last = step;
        continue;
      }
      if (fault !== 'missing')
        return {
          line,
          what: `step ${step} again after step ${last} (expected step ${next}: duplicated or out of order)`,
          next,
        };
      return {
        line,
        what: `step ${step} where step ${next} was expected (step ${next} is missing or out of order)`,
        next,
      };
    }
    if (exact) return { line, what: `step ${step} after the last step ${steps} (expected nothing more)`, next };
    if (step <= last)
      return {
        line,
        what: `step ${step} after step ${last} (expected steps after ${steps} only, increasing: duplicated or out of order)`,
        next,
      };
    last = step;
  }
  if (next <= steps) return { line: null, what: `step ${next} is missing`, next };
  return null;
}

/** The parts of a checkpoint's gate state (GateState, core/retirementGate.ts) a log's retire_opd/* columns show. */
export interface GateLogState {
  readonly pending_k_values: readonly number[];
  readonly completed_windows: readonly { readonly end_step: number; readonly mean: number }[];
  readonly num_evaluated_windows: number;
  readonly retired: boolean;
  readonly last: { readonly k_step: number | null };
}

/** A gate statistic that disagrees with the checkpoint: the line, the log's value and the checkpoint's. */
export interface GateLogProblem {
  line: number;
  what: string;
  expected: string;
}

const KEY = {
  windowIndex: 'retire_opd/window_index',
  windowFill: 'retire_opd/window_fill',
  evaluated: 'retire_opd/num_evaluated_windows',
  retired: 'retire_opd/retired',
  windowMean: 'retire_opd/k_window_mean',
  kStep: 'retire_opd/k_step',
} as const;
/** the step's gap g, whose K = −g the gate observed */
const GAP = 'opd/teacher_student_gap_mean';

/** Equal as logged: both absent (null: a NaN written as null), or within 1e-12 relative (JSON keeps doubles exact). */
function same(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));
}

const shown = (v: number | null | undefined): string => (v === null || v === undefined ? 'none' : String(v));

/**
 * The first disagreement between a student log's `lines` (steps 1 … `step` in order, as stepLinesProblem checked)
 * and the gate state of the checkpoint at student step `step`, or null. Lines without the gate's columns (a
 * schedule without a gate) are not compared.
 */
export function gateLogProblem(lines: readonly string[], gate: GateLogState, step: number): GateLogProblem | null {
  // line number and parsed line of each step 1 … step
  const at = new Map<number, { line: number; m: Record<string, number | null> }>();
  lines.forEach((text, i) => {
    if (text.trim() === '') return;
    try {
      const m = JSON.parse(text) as Record<string, number | null> | null;
      const s = m?.step;
      if (m && typeof s === 'number' && s >= 1 && s <= step && !at.has(s)) at.set(s, { line: i + 1, m });
    } catch {
      // a torn line after the checkpoint
    }
  });
  const has = (m: Record<string, number | null>, key: string): boolean => Object.hasOwn(m, key);
  // each completed window: its end step's line shows it as the latest window, with its K̄
  for (const [j, w] of gate.completed_windows.entries()) {
    const row = at.get(w.end_step);
    if (!row || !has(row.m, KEY.windowIndex)) continue;
    if (row.m[KEY.windowIndex] !== j + 1)
      return {
        line: row.line,
        what: `${KEY.windowIndex} is ${shown(row.m[KEY.windowIndex])} at step ${w.end_step}`,
        expected: `window ${j + 1} ending at step ${w.end_step}`,
      };
    if (has(row.m, KEY.windowMean) && !same(row.m[KEY.windowMean] ?? null, w.mean))
      return {
        line: row.line,
        what: `${KEY.windowMean} (K̄ of window ${j + 1}) is ${shown(row.m[KEY.windowMean])}`,
        expected: `K̄ ${w.mean}`,
      };
  }
  const end = at.get(step);
  if (!end || !has(end.m, KEY.windowIndex)) return null;
  const checks: [string, number | null, number | null][] = [
    [KEY.windowIndex, end.m[KEY.windowIndex] ?? null, gate.completed_windows.length],
    [KEY.windowFill, end.m[KEY.windowFill] ?? null, gate.pending_k_values.length],
    [KEY.evaluated, end.m[KEY.evaluated] ?? null, gate.num_evaluated_windows],
    [KEY.retired, end.m[KEY.retired] ?? null, gate.retired ? 1 : 0],
    [KEY.windowMean, end.m[KEY.windowMean] ?? null, gate.completed_windows.at(-1)?.mean ?? null],
    [KEY.kStep, end.m[KEY.kStep] ?? null, gate.last.k_step],
  ];
  for (const [key, logged, saved] of checks)
    if (has(end.m, key) && !same(logged, saved))
      return { line: end.line, what: `${key} is ${shown(logged)} at step ${step}`, expected: `${key} ${shown(saved)}` };
  // the gaps the gate observed: the steps whose line moved (window_index, window_fill) on; K = −g of each
  const observed: { step: number; line: number; k: number }[] = [];
  let prev: [number | null, number | null] = [0, 0];
  for (let s = 1; s <= step; s++) {
    const row = at.get(s);
    if (!row || !has(row.m, KEY.windowIndex)) continue;
    const now: [number | null, number | null] = [row.m[KEY.windowIndex] ?? null, row.m[KEY.windowFill] ?? null];
    const gap = row.m[GAP];
    if ((now[0] !== prev[0] || now[1] !== prev[1]) && typeof gap === 'number')
      observed.push({ step: s, line: row.line, k: -gap });
    prev = now;
  }
  // each window's K̄ from its gaps, and the open window's gaps, against the checkpoint
  let from = 0;
  for (const [j, w] of gate.completed_windows.entries()) {
    const ks = observed.filter((o) => o.step > from && o.step <= w.end_step);
    from = w.end_step;
    if (ks.length === 0) continue;
    const mean = ks.reduce((sum, o) => sum + o.k, 0) / ks.length;
    if (Math.abs(mean - w.mean) > 1e-9 * Math.max(1e-6, Math.abs(w.mean)))
      return {
        line: ks.at(-1)!.line,
        what: `the ${GAP} of steps ${ks[0]!.step}–${w.end_step} give K̄ ${mean} for window ${j + 1}`,
        expected: `K̄ ${w.mean}`,
      };
  }
  const open = observed.filter((o) => o.step > from);
  for (const [i, o] of open.entries()) {
    const k = gate.pending_k_values[i];
    if (k !== undefined && Math.abs(o.k - k) > 1e-12 * Math.max(1, Math.abs(k)))
      return {
        line: o.line,
        what: `${GAP} is ${-o.k} at step ${o.step} (K = ${o.k})`,
        expected: `pending K value ${i + 1} = ${k}`,
      };
  }
  return null;
}
