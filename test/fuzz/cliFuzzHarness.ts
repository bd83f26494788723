// The harness of the CLI fuzz tests (experimentFuzz.e2e.test.ts): run a command in-process with a time limit, check
// that a refusal is one clear line, count outcomes per area, and the settings that make an accepted run tiny.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import type { CliIo } from '../../cli/cliMain';

/** A scratch folder for this test file (removed after it) and a source of fresh, not yet existing paths in it. */
export function fuzzScratch(prefix: string): { tmp: string; fresh: () => string } {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  let n = 0;
  return { tmp, fresh: () => join(tmp, `case-${n++}`) };
}

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a command in-process with buffered streams; a call that outlives `limitMs` counts as a hang. */
export async function call(
  main: (argv: string[], io: CliIo) => Promise<number>,
  argv: string[],
  limitMs = 20_000,
): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) };
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<number>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${argv.join(' ').slice(0, 200)}`)), limitMs);
  });
  try {
    const code = await Promise.race([main(argv, io), hang]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** A clear refusal: exit 2 and exactly one `command: …` line, no stack frame, no internal error. */
export function expectRefusal(o: Outcome, command: string, what: string): void {
  const lines = o.stderr.split('\n').filter((l) => l.startsWith(`${command}: `));
  expect(o.stderr, what).not.toMatch(/internal error|\n\s+at /);
  expect({ what, code: o.code }).toEqual({ what, code: 2 });
  expect(lines.length, `${what}: ${o.stderr}`).toBe(1);
  expect(o.stderr.endsWith('\n'), what).toBe(true);
  // the refusal is the last thing said, on one line, and short enough to read
  expect(o.stderr.trimEnd().split('\n').at(-1)!.startsWith(`${command}: `), what).toBe(true);
  expect(lines[0]!.length, what).toBeLessThan(2000);
  // no control bytes echoed back
  expect(/[\u0000-\u0008\u000b-\u001f\u007f]/.test(lines[0]!), what).toBe(false);
}

/**
 * How one fuzz case ended: refused as a user error; accepted with the right result; a defect (exit 1, a stack, an
 * internal error); a hang (the time limit); or silently wrong (accepted where it had to be refused, or with a
 * wrong result). The last three must stay at 0.
 */
export type Verdict = 'refused' | 'correct' | 'crash' | 'hang' | 'silently-wrong';
const VERDICTS: readonly Verdict[] = ['refused', 'correct', 'crash', 'hang', 'silently-wrong'];

/** The verdict on `o` (null: it hung). `refuse`: it had to be refused; else `right(o)` says an accepted run is right. */
export function verdictOf(o: Outcome | null, refuse: boolean, right: (o: Outcome) => boolean = () => true): Verdict {
  if (o === null) return 'hang';
  if (/internal error|\n\s+at /.test(o.stderr) || (o.code !== 0 && o.code !== 2)) return 'crash';
  if (o.code === 2) return refuse ? 'refused' : 'silently-wrong';
  return !refuse && right(o) ? 'correct' : 'silently-wrong';
}

/** `call`, with a hang as null instead of an error (so that it is counted before the test fails). */
export async function callOrHang(
  main: (argv: string[], io: CliIo) => Promise<number>,
  argv: string[],
  limitMs = 20_000,
): Promise<Outcome | null> {
  try {
    return await call(main, argv, limitMs);
  } catch (e) {
    if (e instanceof Error && e.message.startsWith('hang: ')) return null;
    throw e;
  }
}

/**
 * Tally of outcomes per area, printed after the test file as the fuzz report's table: tried / refused / correct /
 * crash / hang / silently-wrong. `count(area, true)` is a refusal, `count(area, false)` a correct acceptance (the
 * cases whose assertions fail the test on anything else), or a Verdict.
 */
export function outcomeTally(): (area: string, outcome: boolean | Verdict) => void {
  const tally: Record<string, Record<Verdict, number>> = {};
  afterAll(() => {
    const rows = Object.entries(tally).map(([area, t]) => {
      const tried = VERDICTS.reduce((sum, v) => sum + t[v], 0);
      return `| ${area} | ${tried} | ${VERDICTS.map((v) => t[v]).join(' | ')} |`;
    });
    console.log(
      [`| area | tried | ${VERDICTS.join(' | ')} |`, `|---|${'---:|'.repeat(VERDICTS.length + 1)}`, ...rows].join('\n'),
    );
  });
  return (area, outcome) => {
    const t = (tally[area] ??= { refused: 0, correct: 0, crash: 0, hang: 0, 'silently-wrong': 0 });
    t[outcome === true ? 'refused' : outcome === false ? 'correct' : outcome]++;
  };
}

export const TINY = [
  'sft.steps=1',
  'teacher.steps=1',
  'student.steps=2',
  'student.validationEvery=1',
  'student.validationTasks=2',
  'evaluation.testTasks=2',
  'evaluation.passN=1',
  'evaluation.passK=[1]',
  'evaluation.probeTasks=1',
  'demonstrations.tasks=4',
  'sft.heldOutTasks=2',
  'sft.batchSize=4',
];
export const tinySets = TINY.flatMap((s) => ['--set', s]);

/** The lines of a metrics log without wall-clock keys. */
export const withoutTime = (path: string): Record<string, number>[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map(
      (l) =>
        Object.fromEntries(Object.entries(JSON.parse(l)).filter(([k]) => !k.startsWith('time/'))) as Record<
          string,
          number
        >,
    );
