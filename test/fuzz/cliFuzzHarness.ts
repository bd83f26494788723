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

/** Tally of outcomes per area, printed after the test file (the fuzz report's table). */
export function outcomeTally(): (area: string, refused: boolean) => void {
  const tally: Record<string, { tried: number; refused: number; accepted: number }> = {};
  afterAll(() => {
    console.log(
      Object.entries(tally)
        .map(([a, t]) => `${a}: tried ${t.tried}, refused ${t.refused}, accepted ${t.accepted}`)
        .join('\n'),
    );
  });
  return (area, refused) => {
    const t = (tally[area] ??= { tried: 0, refused: 0, accepted: 0 });
    t.tried++;
    if (refused) t.refused++;
    else t.accepted++;
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
