// The experiment and sweep commands on the smoke preset, end to end. The commands run in-process through their
// exported main(argv, io) (cli/cliMain.ts), except where the process itself is under test: Ctrl-C (a SIGINT to a
// child started the way the npm script starts it, `node --import tsx cli/experiment.ts`, so that the signal reaches
// the CLI's own process) and the exit status and streams of the real process. Config errors: experiment.test.ts.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as experiment } from '../../cli/experiment';
import { main as replay, nodeIo } from '../../cli/replay';
import { main as sweep } from '../../cli/sweep';

const ROOT = join(__dirname, '../..');
/** the npm scripts' command line: `node --import tsx cli/<script>` */
const cli = (script: string): string[] => ['--import', 'tsx', join(ROOT, 'cli', script)];
const tmp = mkdtempSync(join(tmpdir(), 'experiment-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command's main, in-process, with its output captured (the replay command also reads files through `io`). */
async function run(main: typeof experiment | typeof replay, args: string[]): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (t: string) => void (stdout += t),
    stderr: (t: string) => void (stderr += t),
    readLog: nodeIo.readLog,
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** Start the experiment CLI as a child process: its exit code, a signal (SIGINT unless named), its output so far. */
function start(args: string[]): {
  exited: Promise<number | null>;
  kill: (signal?: NodeJS.Signals) => void;
  stdout: () => string;
  stderr: () => string;
} {
  const child = spawn(process.execPath, [...cli('experiment.ts'), ...args, '--no-progress'], { cwd: ROOT });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { exited, kill: (signal = 'SIGINT') => child.kill(signal), stdout: () => out, stderr: () => err };
}

type Line = Record<string, number>;
const readLines = (file: string): Line[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Line);
const withoutTime = (ls: Line[]): Line[] =>
  ls.map((l) => Object.fromEntries(Object.entries(l).filter(([k]) => !k.startsWith('time/'))));
const lineCount = (f: string): number =>
  existsSync(f)
    ? readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.trim()).length
    : 0;
/** Wait for a file the child writes to reach a state (polled; fails naming the file if it never does). */
const until = (file: string, state: () => boolean) =>
  expect.poll(state, { timeout: 90_000, interval: 10, message: `waiting for ${file}` }).toBe(true);

// The uninterrupted smoke run every interrupted run is compared with.
const smoke = join(tmp, 'smoke');
let smokeRun: Result;
beforeAll(async () => {
  smokeRun = await run(experiment, ['--preset', 'smoke', '--out', smoke, '--no-progress']);
});

describe('npm run experiment', () => {
  it('runs the smoke preset into a complete run folder, and the gate fires', () => {
    expect(smokeRun.stderr).not.toMatch(/internal error/);
    expect(smokeRun.code).toBe(0);
    for (const f of [
      'config.json',
      'metrics.jsonl',
      'summary.json',
      'report.md',
      'checkpoints/LATEST',
      'sft.jsonl',
      'teacher.jsonl',
    ]) {
      expect(existsSync(join(smoke, f)), f).toBe(true);
    }
    const summary = JSON.parse(readFileSync(join(smoke, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('completed');
    expect(summary.gate.triggerStep).toBe(10);
    expect(readFileSync(join(smoke, 'report.md'), 'utf8')).toContain('| trigger step | 10 |');
    expect(smokeRun.stdout).toContain('trigger step 10');
  });

  it('replays its own metrics.jsonl through the replay command to its own trigger step', async () => {
    const summary = JSON.parse(readFileSync(join(smoke, 'summary.json'), 'utf8'));
    const report = readFileSync(join(smoke, 'report.md'), 'utf8');
    const cmd = /npm run replay -- metrics\.jsonl (.*)`/.exec(report);
    expect(cmd).not.toBeNull();
    const r = await run(replay, [join(smoke, 'metrics.jsonl'), ...cmd![1]!.split(' ')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({
      type: 'summary',
      retired: true,
      trigger_step: summary.gate.triggerStep,
      agrees_with_log: true,
    });
  });

  it('the real process: a config error exits 2 with one line on stderr and nothing on stdout', () => {
    const r = spawnSync(process.execPath, [...cli('experiment.ts'), '--preset', 'smok'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^experiment: [^\n]*unknown preset "smok" \(available: [^\n]*\)\n$/);
  });
});

describe('Ctrl-C lands within one step, in every stage, with or without periodic checkpoints', () => {
  it('in the student stage: writes a checkpoint and exits 130; --resume finishes with the uninterrupted metrics', async () => {
    const d = join(tmp, 'interrupted');
    const p = start(['--preset', 'smoke', '--out', d]);
    // interrupt once the student stage has logged a few steps
    const log = join(d, 'metrics.jsonl');
    await until(log, () => lineCount(log) >= 3);
    p.kill();
    expect(await p.exited).toBe(130);
    expect(p.stdout()).toContain(`--resume ${d}`);
    // its run folder's lock is given back on the way out
    expect(existsSync(join(d, '.lock'))).toBe(false);
    const latest = readFileSync(join(d, 'checkpoints/LATEST'), 'utf8');
    expect(latest).toMatch(/^student-0000\d\d$/);
    const r = await run(experiment, ['--resume', d, '--no-progress']);
    expect(r.code).toBe(0);
    expect(withoutTime(readLines(log))).toEqual(withoutTime(readLines(join(smoke, 'metrics.jsonl'))));
  });

  it('SIGTERM behaves as Ctrl-C: a checkpoint, a message, exit 143; --resume finishes with the same metrics', async () => {
    const d = join(tmp, 'sigterm');
    const p = start(['--preset', 'smoke', '--out', d]);
    const log = join(d, 'metrics.jsonl');
    await until(log, () => lineCount(log) >= 3);
    p.kill('SIGTERM');
    expect(await p.exited).toBe(143);
    expect(existsSync(join(d, '.lock'))).toBe(false);
    expect(p.stderr()).toContain('terminate (SIGTERM): finishing the current step, writing a checkpoint');
    expect(p.stdout()).toContain(`--resume ${d}`);
    expect(readFileSync(join(d, 'checkpoints/LATEST'), 'utf8')).toMatch(/^student-0000\d\d$/);
    const r = await run(experiment, ['--resume', d, '--no-progress']);
    expect(r.code).toBe(0);
    expect(withoutTime(readLines(log))).toEqual(withoutTime(readLines(join(smoke, 'metrics.jsonl'))));
  });

  it('during SFT with runtime.checkpointEvery=0: stops at the step in progress and writes its checkpoint', async () => {
    const d = join(tmp, 'sigint-sft');
    const set = ['--set', 'runtime.checkpointEvery=0', '--set', 'sft.steps=400'];
    const p = start(['--preset', 'smoke', ...set, '--out', d]);
    const log = join(d, 'sft.jsonl');
    await until(log, () => lineCount(log) >= 3);
    const seen = lineCount(log);
    p.kill();
    expect(await p.exited).toBe(130);
    const latest = readFileSync(join(d, 'checkpoints/LATEST'), 'utf8');
    const step = Number(/^sft-(\d{6})$/.exec(latest)![1]);
    // the step that was running when the signal came (or the one after, if it came between steps)
    expect(step).toBeGreaterThanOrEqual(seen);
    expect(step).toBeLessThanOrEqual(seen + 2);
    expect(lineCount(log)).toBe(step);
  });

  it('during evaluation with runtime.checkpointEvery=0: stops there; --resume completes the evaluation', async () => {
    const d = join(tmp, 'sigint-eval');
    const set = [
      ...['--set', 'runtime.checkpointEvery=0', '--set', 'evaluation.temperatures=[2,3,4]'],
      ...['--set', 'evaluation.testTasks=32', '--set', 'evaluation.passN=16', '--set', 'evaluation.passK=[1,16]'],
    ];
    const p = start(['--preset', 'smoke', ...set, '--out', d]);
    const events = join(d, 'events.jsonl');
    await until(events, () => existsSync(events) && readFileSync(events, 'utf8').includes('"kind":"final"'));
    p.kill();
    expect(await p.exited).toBe(130);
    expect(readFileSync(join(d, 'checkpoints/LATEST'), 'utf8')).toBe('evaluation-000000');
    const r = await run(experiment, ['--resume', d, '--no-progress']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(d, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('completed');
    expect(summary.temperatureControl).toHaveLength(4);
  });

  it('right after config.json is written: the folder resumes to the same metrics as an uninterrupted run', async () => {
    const d = join(tmp, 'sigint-start');
    const p = start(['--preset', 'smoke', '--out', d]);
    const config = join(d, 'config.json');
    await until(config, () => existsSync(config));
    p.kill();
    expect(await p.exited).toBe(130);
    const r = await run(experiment, ['--resume', d, '--no-progress']);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(withoutTime(readLines(join(d, 'metrics.jsonl')))).toEqual(
      withoutTime(readLines(join(smoke, 'metrics.jsonl'))),
    );
  });
});

describe('one process per run folder (its lock)', () => {
  /** A copy of the smoke run to resume from the start of its student stage (20 steps to go). */
  const copyToResume = (name: string): string => {
    const d = join(tmp, name);
    cpSync(smoke, d, { recursive: true });
    writeFileSync(join(d, 'checkpoints', 'LATEST'), 'student-000000');
    return d;
  };

  it('two --resume of one folder at once: the second is refused naming the owner (exit 2), the first completes with each step once', async () => {
    const d = copyToResume('two-resumes');
    const a = start(['--resume', d]);
    await expect.poll(() => a.stderr(), { timeout: 90_000, interval: 20 }).toContain(`resuming ${d}`);
    // the first is held mid-run, so the second meets a live owner however fast or slow either process is
    a.kill('SIGSTOP');
    const b = start(['--resume', d]);
    const bCode = await b.exited;
    a.kill('SIGCONT');
    const aCode = await a.exited;
    expect(b.stderr()).toMatch(
      new RegExp(
        `^experiment: ${d.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is in use by another run \\(pid \\d+ on [^,]+, since \\d{4}-\\d\\d-\\d\\dT[^)]+\\): wait for it to finish or stop it\n$`,
      ),
    );
    expect(bCode).toBe(2);
    expect(aCode, a.stderr()).toBe(0);
    const steps = readLines(join(d, 'metrics.jsonl')).map((l) => l.step);
    expect(steps).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(withoutTime(readLines(join(d, 'metrics.jsonl')))).toEqual(
      withoutTime(readLines(join(smoke, 'metrics.jsonl'))),
    );
    expect(existsSync(join(d, '.lock'))).toBe(false);
  });

  it('a write over the file size limit (ulimit -f) is one line naming the file, exit 2; the run resumes from its last checkpoint', async () => {
    const d = join(tmp, 'efbig');
    // 200 KiB per file: the stage-end checkpoints fit, the first periodic student checkpoint (with Adam) does not
    const r = spawnSync(
      'bash',
      ['-c', `ulimit -f 200 && exec "$0" "$@"`, process.execPath, ...cli('experiment.ts'), '--preset', 'smoke'].concat([
        '--out',
        d,
        '--no-progress',
      ]),
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^experiment: \S+\/checkpoints\/student-\d{6}\/\S+: the file is larger than this process may write .*\(EFBIG\).*--resume /,
    );
    expect(existsSync(join(d, '.lock'))).toBe(false);
    const again = await run(experiment, ['--resume', d, '--no-progress']);
    expect(again.code, again.stderr).toBe(0);
    expect(withoutTime(readLines(join(d, 'metrics.jsonl')))).toEqual(
      withoutTime(readLines(join(smoke, 'metrics.jsonl'))),
    );
  });

  it('a run killed with SIGKILL leaves a stale lock, which the next --resume takes over with a note', async () => {
    const d = copyToResume('killed');
    const a = start(['--resume', d]);
    await expect.poll(() => a.stderr(), { timeout: 90_000, interval: 20 }).toContain(`resuming ${d}`);
    a.kill('SIGKILL');
    await a.exited;
    expect(existsSync(join(d, '.lock'))).toBe(true);
    const r = await run(experiment, ['--resume', d, '--no-progress']);
    expect(r.stderr).toMatch(
      new RegExp(`note: .*: took over a stale lock \\(pid \\d+ on [^,]+, since [^,]+, is gone\\)\n`),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(withoutTime(readLines(join(d, 'metrics.jsonl')))).toEqual(
      withoutTime(readLines(join(smoke, 'metrics.jsonl'))),
    );
  });
});

/** A run folder's summary.json without its wall-clock fields. */
function summaryWithoutTime(runDir: string): Record<string, unknown> {
  const {
    wallSeconds: _w,
    stepMs: _s,
    ...rest
  } = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Record<string, unknown>;
  return rest;
}

describe('npm run sweep', () => {
  /** two schedules × two seeds of the smoke preset, 10 student steps */
  const smokeSweep = [
    ...['--preset', 'smoke', '--vary', 'student.schedule=adaptive,none', '--seeds', '0,1'],
    ...['--set', 'student.steps=10', '--no-progress'],
  ];

  it('runs every point for every seed and writes the comparison table', async () => {
    const out = join(tmp, 'sweep');
    const r = await run(sweep, [...smokeSweep, '--out', out]);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    const table = readFileSync(join(out, 'comparison.md'), 'utf8');
    expect(table).toContain(
      '| student.schedule | seeds | test success % (mean ± 95% CI) | steps to 0.9·S_T | trigger step | teacher forwards saved | wall s |',
    );
    expect(table).toMatch(/\| adaptive \| 2 \| [\d.]+ ± [\d.]+ \| [\d–]+, [\d–]+ \| 10, 10 \| 0\.0 \|/);
    expect(table).toMatch(/\| none \| 2 \| [\d.]+ ± [\d.]+ \| [\d–]+, [\d–]+ \| –, – \| 10\.0 \|/);
    // the figure: one series per schedule, with the adaptive seeds' retirement markers
    const svg = readFileSync(join(out, 'validation-shell.svg'), 'utf8');
    expect(svg).toMatch(/^<svg /);
    expect(svg).toContain('adaptive (2 seeds, 2 retired)');
    expect(svg).toContain('none (2 seeds, 0 retired)');
    // --report: the same outcome again from the finished folder, without running anything
    const again = join(tmp, 'sweep-report');
    const rep = await run(sweep, ['--report', out, '--out', again]);
    expect(rep.code).toBe(0);
    expect(readFileSync(join(again, 'comparison.md'), 'utf8')).toContain(table.split('\n').at(-2)!);
    expect(existsSync(join(again, 'validation-shell.svg'))).toBe(true);
    expect(existsSync(join(out, 'student.schedule-none_seed-1', 'summary.json'))).toBe(true);
  });

  it('with --jobs 2 sweeps its seeds in two processes and leaves every run folder as the one-process sweep does', async () => {
    // the same sweep as above, whose folders (one process) it is compared with
    const one = join(tmp, 'sweep');
    const out = join(tmp, 'sweep-lanes');
    const r = await run(sweep, [...smokeSweep, '--out', out, '--jobs', '2']);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('in 2 processes at once (4 groups by prefix');
    // the lanes' progress lines reach the parent's stderr, numbered in the whole sweep
    expect(r.stderr).toMatch(/\[4\/4\] student\.schedule=none seed=1: completed/);
    for (const run of ['student.schedule-adaptive_seed-0', 'student.schedule-none_seed-1']) {
      for (const file of ['metrics.jsonl', 'sft.jsonl'])
        expect(withoutTime(readLines(join(out, run, file)))).toEqual(withoutTime(readLines(join(one, run, file))));
      expect(summaryWithoutTime(join(out, run))).toEqual(summaryWithoutTime(join(one, run)));
    }
    // the parent's outcome covers every lane's runs: the same rows, wall time aside
    const rows = (dir: string): string[] =>
      readFileSync(join(dir, 'comparison.md'), 'utf8')
        .split('\n')
        .filter((l) => /^\| (adaptive|none) \|/.test(l))
        .map((l) => l.replace(/\| [\d.]+ \|$/, '|'));
    expect(rows(out)).toHaveLength(2);
    expect(rows(out)).toEqual(rows(one));
  });

  it('with --jobs 2 a follower that leaves its leader continues in another process, as the run made alone', async () => {
    // RetireOPD (adaptive) rides along OPD throughout (never), which keeps the teacher longer and so leads, until its
    // trigger, step 10 of 20, then continues in whichever lane is free first, from the state its lane wrote into its
    // folder; the leader goes on in its own lane
    const args = ['--preset', 'smoke', '--vary', 'student.schedule=adaptive,never', '--seeds', '0', '--no-progress'];
    const oneDir = join(tmp, 'ride-one');
    const lanesDir = join(tmp, 'ride-lanes');
    const one = await run(sweep, [...args, '--out', oneDir, '--jobs', '1']);
    const lanes = await run(sweep, [...args, '--out', lanesDir, '--jobs', '2']);
    expect(one.code).toBe(0);
    expect(lanes.stderr).not.toMatch(/internal error|warning: .*not handed/);
    expect(lanes.code).toBe(0);
    expect(lanes.stderr).toContain(
      "student.schedule=adaptive seed=0: rides along student.schedule=never seed=0's student stage",
    );
    expect(lanes.stderr).toContain('[1/2] student.schedule=adaptive seed=0: continues alone from student step 10');
    for (const dir of ['student.schedule-adaptive_seed-0', 'student.schedule-never_seed-0']) {
      for (const file of ['metrics.jsonl', 'sft.jsonl', 'events.jsonl'])
        expect(withoutTime(readLines(join(lanesDir, dir, file)))).toEqual(
          withoutTime(readLines(join(oneDir, dir, file))),
        );
      expect(summaryWithoutTime(join(lanesDir, dir))).toEqual(summaryWithoutTime(join(oneDir, dir)));
    }
    // the state written for the hand-off is pruned like any mid-stage checkpoint: the same checkpoints remain
    const adaptive = 'student.schedule-adaptive_seed-0';
    expect(readdirSync(join(lanesDir, adaptive, 'checkpoints'))).toEqual(
      readdirSync(join(oneDir, adaptive, 'checkpoints')),
    );
  });
});
