// The experiment and sweep commands end to end, as a user runs them: child processes started the way the npm
// scripts start them (`node --import tsx cli/<name>.ts`), so a SIGINT reaches the CLI's own process.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
/** the npm scripts' command line: `node --import tsx cli/<script>` */
const cli = (script: string): string[] => ['--import', 'tsx', join(ROOT, 'cli', script)];
const tmp = mkdtempSync(join(tmpdir(), 'experiment-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(script: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...cli(script), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

type Line = Record<string, number>;
const readLines = (file: string): Line[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Line);
const withoutTime = (ls: Line[]): Line[] =>
  ls.map((l) => Object.fromEntries(Object.entries(l).filter(([k]) => !k.startsWith('time/'))));

describe('npm run experiment', () => {
  const dir = join(tmp, 'smoke');
  let result: ReturnType<typeof run>;
  beforeAll(() => {
    result = run('experiment.ts', ['--preset', 'smoke', '--out', dir, '--no-progress']);
  });

  it('runs the smoke preset into a complete run folder, and the gate fires', () => {
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    for (const f of [
      'config.json',
      'metrics.jsonl',
      'summary.json',
      'report.md',
      'checkpoints/LATEST',
      'sft.jsonl',
      'teacher.jsonl',
    ]) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('completed');
    expect(summary.gate.triggerStep).toBe(10);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain('| trigger step | 10 |');
    expect(result.stdout).toContain('trigger step 10');
  });

  it('replays its own metrics.jsonl through the replay command to its own trigger step', () => {
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const report = readFileSync(join(dir, 'report.md'), 'utf8');
    const cmd = /npm run replay -- metrics\.jsonl (.*)`/.exec(report);
    expect(cmd).not.toBeNull();
    const r = run('replay.ts', [join(dir, 'metrics.jsonl'), ...cmd![1]!.split(' ')]);
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

  it('Ctrl-C writes a checkpoint and exits; --resume finishes with the same metrics as the uninterrupted run', async () => {
    const d2 = join(tmp, 'interrupted');
    const child = spawn(
      process.execPath,
      [...cli('experiment.ts'), '--preset', 'smoke', '--out', d2, '--no-progress'],
      {
        cwd: ROOT,
      },
    );
    let stdout = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    // interrupt once the student stage has logged a few steps
    const t0 = Date.now();
    while (Date.now() - t0 < 60_000) {
      await new Promise((r) => setTimeout(r, 50));
      const f = join(d2, 'metrics.jsonl');
      if (existsSync(f) && readFileSync(f, 'utf8').split('\n').length > 3) break;
    }
    child.kill('SIGINT');
    const code = await exited;
    expect(code).toBe(130);
    expect(stdout).toContain(`--resume ${d2}`);
    const latest = readFileSync(join(d2, 'checkpoints/LATEST'), 'utf8');
    expect(latest).toMatch(/^student-0000\d\d$/);
    const r = run('experiment.ts', ['--resume', d2, '--no-progress']);
    expect(r.code).toBe(0);
    expect(withoutTime(readLines(join(d2, 'metrics.jsonl')))).toEqual(
      withoutTime(readLines(join(dir, 'metrics.jsonl'))),
    );
  });
});

/** Start the experiment CLI as a child; resolves its exit code. */
function start(args: string[]): { exited: Promise<number | null>; kill: () => void; stdout: () => string } {
  const child = spawn(process.execPath, [...cli('experiment.ts'), ...args, '--no-progress'], { cwd: ROOT });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', () => undefined);
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { exited, kill: () => child.kill('SIGINT'), stdout: () => out };
}

async function waitFor(test: () => boolean, pollMs: number): Promise<void> {
  const t0 = Date.now();
  while (!test()) {
    if (Date.now() - t0 > 90_000) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

const lineCount = (f: string): number =>
  existsSync(f)
    ? readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.trim()).length
    : 0;

describe('Ctrl-C lands within one step, in every stage, with or without periodic checkpoints', () => {
  it('during SFT with runtime.checkpointEvery=0: stops at the step in progress and writes its checkpoint', async () => {
    const d = join(tmp, 'sigint-sft');
    const set = ['--set', 'runtime.checkpointEvery=0', '--set', 'sft.steps=400'];
    const p = start(['--preset', 'smoke', ...set, '--out', d]);
    const log = join(d, 'sft.jsonl');
    await waitFor(() => lineCount(log) >= 3, 10);
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
    await waitFor(() => existsSync(events) && readFileSync(events, 'utf8').includes('"kind":"final"'), 10);
    p.kill();
    expect(await p.exited).toBe(130);
    expect(readFileSync(join(d, 'checkpoints/LATEST'), 'utf8')).toBe('evaluation-000000');
    const r = run('experiment.ts', ['--resume', d, '--no-progress']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(d, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('completed');
    expect(summary.temperatureControl).toHaveLength(4);
  });

  it('right after config.json is written: the folder resumes to the same metrics as an uninterrupted run', async () => {
    const d = join(tmp, 'sigint-start');
    const p = start(['--preset', 'smoke', '--out', d]);
    await waitFor(() => existsSync(join(d, 'config.json')), 2);
    p.kill();
    expect(await p.exited).toBe(130);
    const r = run('experiment.ts', ['--resume', d, '--no-progress']);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(withoutTime(readLines(join(d, 'metrics.jsonl')))).toEqual(
      withoutTime(readLines(join(tmp, 'smoke', 'metrics.jsonl'))),
    );
  });
});

describe('config errors', () => {
  it('an unknown preset lists the available presets (exit 2, no stack trace)', () => {
    const r = run('experiment.ts', ['--preset', 'smok']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'unknown preset "smok" (available: actobs-vs-actionsft, control-shell, estimators, grpo-house, grpo-shell, grpo-shop, opd-house, opd-shell, opd-shop, retire-house, retire-shell, retire-shop, schedules, smoke)',
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('an unknown --set key lists the valid keys at that level', () => {
    const r = run('experiment.ts', [
      '--preset',
      'smoke',
      '--set',
      'student.lamda_opd=0.1',
      '--out',
      join(tmp, 'never'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'unknown key "student.lamda_opd" (valid keys under "student": steps, grpo, schedule, lambdaOpd',
    );
    expect(existsSync(join(tmp, 'never'))).toBe(false);
  });

  it('a bad value names the key and what is valid', () => {
    const a = run('experiment.ts', ['--preset', 'smoke', '--set', 'student.schedule=sometimes']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(
      /student\.schedule: expected one of adaptive, never, none, fixed:N, linear:N, alignment-only, competence-only/,
    );
    const b = run('experiment.ts', ['--preset', 'smoke', '--backend', 'tpu']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/runtime\.backend: .*cpu.*wasm.*webgpu/);
    const c = run('experiment.ts', ['--preset', 'smoke', '--frobnicate']);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain("Unknown option '--frobnicate'");
  });

  it('a resume of a folder without a run says so', () => {
    const r = run('experiment.ts', ['--resume', join(tmp, 'nothing-here')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`experiment: --resume ${join(tmp, 'nothing-here')}: no such folder\n`);
    const empty = join(tmp, 'empty-folder');
    mkdirSync(empty);
    const e = run('experiment.ts', ['--resume', empty]);
    expect(e.code).toBe(2);
    expect(e.stderr).toBe(`experiment: ${empty} is not a run folder (no config.json)\n`);
  });
});

describe('npm run sweep', () => {
  it('runs every point for every seed and writes the comparison table', () => {
    const out = join(tmp, 'sweep');
    const r = run('sweep.ts', [
      '--preset',
      'smoke',
      '--vary',
      'student.schedule=adaptive,none',
      '--seeds',
      '0,1',
      '--set',
      'student.steps=10',
      '--out',
      out,
      '--no-progress',
    ]);
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
    const rep = run('sweep.ts', ['--report', out, '--out', again]);
    expect(rep.code).toBe(0);
    expect(readFileSync(join(again, 'comparison.md'), 'utf8')).toContain(table.split('\n').at(-2)!);
    expect(existsSync(join(again, 'validation-shell.svg'))).toBe(true);
    expect(existsSync(join(out, 'student.schedule-none_seed-1', 'summary.json'))).toBe(true);
  });

  it('rejects an unknown axis key before running anything', () => {
    const r = run('sweep.ts', [
      '--preset',
      'smoke',
      '--vary',
      'student.shedule=never',
      '--out',
      join(tmp, 'sweep-bad'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown key "student.shedule"');
    expect(existsSync(join(tmp, 'sweep-bad'))).toBe(false);
  });
});

describe('shipped teacher', () => {
  it('retire-shell loads public/teachers/shell, and a config for another env is refused naming the fields', async () => {
    const { loadShippedTeacher, readPreset } = await import('../../cli/experimentRunner');
    const { resolveConfig } = await import('../../src/core/experiment/config');
    const { parameterSpecs } = await import('../../src/engine/model');
    const { modelConfigFor } = await import('../../src/engine/trainer/trainer');
    const { createEnvFor } = await import('../../src/core/experiment/envFactory');
    const cfg = readPreset('retire-shell').config;
    const weights = await loadShippedTeacher(cfg);
    const specs = parameterSpecs(modelConfigFor(cfg, createEnvFor(cfg)));
    expect(weights!.map((w) => w.name).sort()).toEqual(specs.map((s) => s.key).sort());
    const house = resolveConfig({ env: { name: 'house' }, teacher: { checkpoint: 'teachers/shell' } }, cfg);
    await expect(loadShippedTeacher(house)).rejects.toThrow(/trained for another model\/env: vocabSize \d+ ≠ \d+/);
    const missing = resolveConfig({ teacher: { checkpoint: 'teachers/nowhere' } }, cfg);
    await expect(loadShippedTeacher(missing)).rejects.toThrow(/no checkpoint at .*teachers\/nowhere/);
  });
});
