// A sweep that shares its config prefix gives every run the run folder it would have made alone: three arms of the
// smoke preset (adaptive, never, fixed:5; one seed) swept with sharing — the first trains demonstrations, SFT and
// teacher, the other two fork from its checkpoint before the student stage (cli/prefixFork.ts) — and with
// --no-share, on the cpu and the wasm backend. Every log line of every run must be equal, wall-clock fields aside.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main as sweep } from '../../cli/sweep';

const tmp = mkdtempSync(join(tmpdir(), 'prefix-fork-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** wall-clock fields: the only ones allowed to differ between two runs of the same seed */
const CLOCK_KEYS = (k: string): boolean => k.startsWith('time/') || k === 'wallSeconds' || k === 'stepMs';

/** A log file's lines (a .json file: its one value) with the wall-clock fields removed ([] when it is absent). */
function linesOf(file: string): string[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return (file.endsWith('.json') ? [text] : text.split('\n'))
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.stringify(JSON.parse(l), (k, v: unknown) => (CLOCK_KEYS(k) ? undefined : v)));
}

async function runSweep(backend: string, out: string, extra: string[]): Promise<string> {
  let stderr = '';
  const io = { stdout: () => undefined, stderr: (t: string) => void (stderr += t) };
  const code = await sweep(
    [
      '--preset',
      'smoke',
      '--vary',
      'student.schedule=adaptive,never,fixed:5',
      '--seeds',
      '0',
      '--backend',
      backend,
      '--out',
      out,
      '--no-progress',
      ...extra,
    ],
    io,
  );
  expect(stderr).not.toMatch(/internal error/);
  expect(code).toBe(0);
  return stderr;
}

const RUNS = ['adaptive', 'never', 'fixed_5'].map((s) => `student.schedule-${s}_seed-0`);
const FILES = ['config.json', 'sft.jsonl', 'teacher.jsonl', 'metrics.jsonl', 'events.jsonl', 'summary.json'];

describe.each(['cpu', 'wasm'])('a sweep sharing its prefix on the %s backend', (backend) => {
  it('writes for every run the same logs and summary as the run made alone', { timeout: 900_000 }, async () => {
    const shared = join(tmp, `${backend}-shared`);
    const alone = join(tmp, `${backend}-alone`);
    const log = await runSweep(backend, shared, []);
    // the first arm trained the prefix, the other two forked from it
    expect(log.match(/prefix shared with /g)?.length).toBe(2);
    expect(log).toContain(`prefix shared with ${join(shared, RUNS[0]!)}`);
    expect(await runSweep(backend, alone, ['--no-share'])).not.toContain('prefix shared');
    for (const run of RUNS) {
      for (const file of FILES) {
        const a = linesOf(join(alone, run, file));
        const s = linesOf(join(shared, run, file));
        expect(s.length, `${run}/${file}`).toBeGreaterThan(0);
        expect(s, `${run}/${file}`).toEqual(a);
      }
      // the forked run continued from the prefix's stage-end checkpoint, which its folder holds like a run alone:
      // with the run's own config, so that --resume takes it as any other
      const state = JSON.parse(
        readFileSync(join(shared, run, 'checkpoints', 'student-000000', 'state.json'), 'utf8'),
      ) as { config: unknown };
      expect(state.config, run).toEqual(JSON.parse(readFileSync(join(shared, run, 'config.json'), 'utf8')));
    }
    // the arms differ after the fork point: never keeps the teacher, adaptive retires it
    expect(linesOf(join(shared, RUNS[0]!, 'metrics.jsonl'))).not.toEqual(
      linesOf(join(shared, RUNS[1]!, 'metrics.jsonl')),
    );
  });
});
