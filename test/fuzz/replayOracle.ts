// An independent, deliberately plain reading of a replay input, to check the answer of inputs the replay accepted
// although they were damaged (truncated, a line deleted, a character changed): whole-text parsing with JSON.parse and
// papaparse, no streaming, no column store. It trusts the gate itself (src/core/lambdaSchedule, tested on its own)
// and the keys the replay reports having used; it answers the trigger step the log's content implies.
import Papa from 'papaparse';
import { LambdaSchedule } from '../../src/core/lambdaSchedule';

/** Keys equal after NFC, "/" ≡ "_" and lower case (README, "Formats"); nothing else is equated. */
const normalise = (key: string) => key.normalize('NFC').split('/').join('_').toLowerCase();

interface Row {
  step: number;
  values: Record<string, unknown>;
}

/** JSON with Python's bare NaN / ±Infinity read as null (only finite gaps and scores matter here). */
const parse = (text: string): unknown => JSON.parse(text.replace(/-?Infinity|NaN/g, 'null'));

function rowsOf(name: string, raw: string): Row[] {
  const text = raw.replace(/^\uFEFF/, '');
  if (/\.csv$/i.test(name)) {
    const [header, ...data] = Papa.parse<string[]>(text.trim(), { skipEmptyLines: 'greedy' }).data;
    const fields = (header ?? []).map((h) => h.trim());
    const stepAt = fields.findIndex((f) => /^(step|_step|global_step)$/i.test(f));
    const tag = /tag-(.+)\.csv$/i.exec(name)?.[1] ?? name;
    return data.map((cells) => {
      const values: Record<string, unknown> = {};
      fields.forEach((f, i) => {
        const cell = (cells[i] ?? '').trim();
        if (i !== stepAt && cell !== '') values[/^value$/i.test(f) ? tag : f] = Number(cell);
      });
      return { step: Number(cells[stepAt]), values };
    });
  }
  if (/"log_history"/.test(text)) {
    return ((parse(text) as { log_history: Record<string, unknown>[] }).log_history ?? []).map((entry) => ({
      step: Number(entry.step),
      values: entry,
    }));
  }
  return text
    .split(/\r\n|\n|\r/)
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const o = parse(l) as { step: number; data?: Record<string, unknown> } & Record<string, unknown>;
      return { step: Number(o.step), values: typeof o.data === 'object' && o.data !== null ? o.data : o };
    });
}

const valueOf = (values: Record<string, unknown>, key: string): number | undefined => {
  const hit = key in values ? values[key] : Object.entries(values).find(([k]) => normalise(k) === normalise(key))?.[1];
  return typeof hit === 'number' && Number.isFinite(hit) ? hit : undefined;
};

/** The trigger step the files' content implies for the gap and validation keys the replay reported. */
export function oracleTrigger(
  files: ReadonlyArray<readonly [string, string]>,
  args: readonly string[],
  gapKey: string,
  valKey: string,
): number | null {
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : Number(args[i + 1]);
  };
  const schedule = new LambdaSchedule('adaptive', {
    lambdaOpd: 1,
    teacherPerformance: flag('--teacher-performance') as number,
    ...(flag('--window') === undefined ? {} : { windowSize: flag('--window') }),
    ...(flag('--alignment-threshold') === undefined ? {} : { alignmentThreshold: flag('--alignment-threshold') }),
  });
  const steps = new Map<number, { gap?: number; val?: number; skipped: boolean }>();
  for (const [name, text] of files) {
    for (const row of rowsOf(name, text)) {
      const entry = steps.get(row.step) ?? { skipped: false };
      entry.gap ??= valueOf(row.values, gapKey);
      entry.val ??= valueOf(row.values, valKey);
      if ((valueOf(row.values, 'retire_opd/teacher_forward_skipped') ?? 0) > 0) entry.skipped = true;
      steps.set(row.step, entry);
    }
  }
  for (const [step, s] of [...steps].sort(([a], [b]) => a - b)) {
    if (s.gap !== undefined || s.skipped) {
      const plan = schedule.beginStep(step);
      if (plan.teacherNeeded && s.gap !== undefined && !s.skipped) schedule.observeGap(step, s.gap);
    }
    if (s.val !== undefined) schedule.validate(step, s.val);
  }
  return schedule.gate.triggerStep;
}
