// A sweep that shares gives every run the run folder it would have made alone: three arms of the smoke preset
// (adaptive, never, fixed:5; one seed) swept with sharing — the first trains demonstrations, SFT and teacher, the
// other two fork from its checkpoint before the student stage (cli/prefixFork.ts) and ride along its student stage
// as followers (src/engine/trainer/followers.ts) until their schedules plan a step differently: fixed:5 leaves after
// step 5, never after the adaptive gate's trigger (step 10) — and with --no-share, on the cpu and the wasm backend.
// Every log line of every run must be equal, wall-clock fields aside.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main as sweep, sweepRunsOf, type SweepOptions } from '../../cli/sweep';
import type { Ride } from '../../cli/sweepRides';

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

async function runSweep(
  backend: string,
  out: string,
  extra: string[],
  options: SweepOptions = {},
  schedules = 'adaptive,never,fixed:5',
): Promise<string> {
  let stderr = '';
  const io = { stdout: () => undefined, stderr: (t: string) => void (stderr += t) };
  const code = await sweep(
    [
      '--preset',
      'smoke',
      '--vary',
      `student.schedule=${schedules}`,
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
    options,
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
    // the first arm trained the prefix, the other two forked from it and rode along its student stage
    expect(log.match(/rides along student.schedule=adaptive seed=0's student stage/g)?.length).toBe(2);
    expect(log).toMatch(/student.schedule=never seed=0: shared .*student steps 1–10; continues alone/);
    expect(log).toMatch(/student.schedule=fixed:5 seed=0: shared .*student steps 1–5; continues alone/);
    expect(await runSweep(backend, alone, ['--no-share'])).not.toMatch(/prefix shared|rides along/);
    // a population of at most 2: never rides along adaptive, fixed:5 only forks the prefix and trains alone
    const capped = join(tmp, `${backend}-capped`);
    const cappedLog = await runSweep(backend, capped, ['--population-size', '2']);
    expect(cappedLog.match(/rides along/g)?.length).toBe(1);
    expect(cappedLog).toMatch(/student.schedule=never seed=0: rides along/);
    expect(cappedLog).toMatch(/student.schedule=fixed:5 seed=0: prefix shared with /);
    // across two sweeps, as \`npm run protocol\` runs its arms: never rides along the first sweep's adaptive run,
    // then its own sweep continues it
    const armA = join(tmp, `${backend}-arm-adaptive`);
    const armB = join(tmp, `${backend}-arm-never`);
    const rides = new Map<string, Ride>();
    const argvB = ['--preset', 'smoke', '--vary', 'student.schedule=never', '--seeds', '0', '--out', armB];
    const logA = await runSweep(
      backend,
      armA,
      [],
      { rides, riders: sweepRunsOf([...argvB, '--backend', backend]) },
      'adaptive',
    );
    expect(logA).toMatch(/student.schedule=never seed=0: rides along student.schedule=adaptive seed=0's student stage/);
    const logB = await runSweep(backend, armB, [], { rides }, 'never');
    expect(logB).toMatch(/student.schedule=never seed=0: shared .*student steps 1–10; continues alone/);
    for (const file of FILES)
      expect(linesOf(join(armB, RUNS[1]!, file)), `across sweeps ${file}`).toEqual(
        linesOf(join(alone, RUNS[1]!, file)),
      );
    for (const run of RUNS) {
      for (const file of FILES) {
        const a = linesOf(join(alone, run, file));
        expect(a.length, `${run}/${file}`).toBeGreaterThan(0);
        expect(linesOf(join(shared, run, file)), `${run}/${file}`).toEqual(a);
        expect(linesOf(join(capped, run, file)), `capped ${run}/${file}`).toEqual(a);
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
