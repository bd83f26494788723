// Seeded, bounded fuzzing of the experiment, sweep and env commands, run in-process (cli/*.ts export main(argv, io)).
// Every generated input must end in one of two ways: refused as a user error (exit 2, exactly one `command: …`
// line on stderr, no stack frame, no "internal error"), or accepted with the right result (the value lands in the
// run's config; a damaged-but-usable run folder resumes to the same summary as the undamaged run). Never a
// defect (exit 1 with a stack) and never a hang (each call races a time limit).
// Damaged checkpoints come from one tiny smoke run made in beforeAll.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main as envMain } from '../../cli/env';
import { main as experimentMain } from '../../cli/experiment';
import { main as sweepMain } from '../../cli/sweep';
import { applyOverrides, configKeys, DEFAULT_CONFIG, getConfigValue } from '../../src/core/experiment/config';
import { createRng } from '../../src/core/rng';
import { ACCEPTED, EARLIER, LEFTOVER, LOG_DAMAGE, REFUSED } from './checkpointDamage';
import {
  call,
  callOrHang,
  expectRefusal,
  fuzzScratch,
  outcomeTally,
  tinySets,
  verdictOf,
  withoutTime,
} from './cliFuzzHarness';
import { BAD_KEYS, BAD_VALUES, FIXED_FLAGS } from './experimentFlagCases';

const { tmp, fresh } = fuzzScratch('experiment-fuzz-');
const count = outcomeTally();

// ------------------------------------------------------------------ the base run damaged checkpoints come from

const base = join(tmp, 'base');
let baseSummary: { test: unknown; gate: unknown };
beforeAll(async () => {
  // tiny, with a checkpoint every 2 student steps, all kept (student-000002 … student-000010)
  const sets = [
    ...tinySets,
    ...['--set', 'student.steps=10', '--set', 'runtime.checkpointEvery=2', '--set', 'runtime.keepCheckpoints=0'],
  ];
  const o = await call(experimentMain, ['--preset', 'smoke', ...sets, '--out', base, '--no-progress'], 60_000);
  expect(o.stderr).not.toMatch(/internal error/);
  expect(o.code).toBe(0);
  baseSummary = JSON.parse(readFileSync(join(base, 'summary.json'), 'utf8'));
}, 90_000);

describe('experiment config and flags', () => {
  const rng = createRng(13);
  const keys = configKeys();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)]!;

  it('refuses every bad flag, key and value with one line, or accepts it with the value in the config', async () => {
    const cases: string[][] = [...FIXED_FLAGS];
    for (let i = 0; i < 90; i++) cases.push(['--set', `${pick(keys)}=${pick(BAD_VALUES)}`]);
    for (const k of BAD_KEYS) cases.push(['--set', `${k}=1`]);
    for (let i = 0; i < 10; i++) cases.push(['--set', `${pick(BAD_KEYS)}=${pick(BAD_VALUES)}`]);
    let accepted = 0;
    for (const extra of cases) {
      const argv = extra.includes('--preset') ? [...extra] : ['--preset', 'smoke', ...extra];
      // values the pure config layer accepts are checked there (no training); refusals go through the CLI
      const sets = extra.flatMap((a, i) => (extra[i - 1] === '--set' ? [a] : []));
      let config: unknown = null;
      if (sets.length === extra.length / 2 && extra.every((a, i) => i % 2 === 1 || a === '--set')) {
        try {
          config = applyOverrides(DEFAULT_CONFIG, sets);
        } catch {
          config = null;
        }
      }
      if (
        config !== null &&
        !sets.some((s) => s.startsWith('runtime.backend=') || s.startsWith('teacher.checkpoint'))
      ) {
        // accepted: the value read is the value written (numbers as numbers, strings verbatim)
        const [key, ...rest] = sets.at(-1)!.split('=');
        const raw = rest.join('=').trim();
        const got = getConfigValue(config as typeof DEFAULT_CONFIG, key!.trim());
        const def = getConfigValue(DEFAULT_CONFIG, key!.trim());
        if (typeof def === 'number') expect(got, sets.join(' ')).toBe(Number(raw));
        else if (typeof def === 'string') expect(got, sets.join(' ')).toBe(raw);
        else expect(got, sets.join(' ')).toEqual(JSON.parse(raw));
        accepted++;
        count('experiment config and flags', false);
        continue;
      }
      const out = fresh();
      const o = await call(experimentMain, [...argv, '--out', out, '--no-progress']);
      expectRefusal(o, 'experiment', argv.join(' '));
      // refused before any work: no run folder left behind
      expect(existsSync(join(out, 'config.json')), argv.join(' ')).toBe(false);
      count('experiment config and flags', true);
    }
    expect(accepted).toBeGreaterThan(0);
  });

  it('refuses a config.json with prototype keys or garbage on --resume, one line each', async () => {
    const bodies = [
      'null',
      '[]',
      '"x"',
      '{"__proto__": {"seed": 5}}',
      '{"constructor": {"prototype": {"x": 1}}}',
      '{"model": {"__proto__": {"width": 8}}}',
      '{"model": {"width": 1e9}}',
      '{',
      '\u0000\u0001\u0002',
      '{"seed": 0}'.repeat(3),
    ];
    for (const body of bodies) {
      const dir = fresh();
      mkdirSync(dir);
      writeFileSync(join(dir, 'config.json'), body);
      const o = await call(experimentMain, ['--resume', dir, '--no-progress']);
      expectRefusal(o, 'experiment', `config.json ${body}`);
      count('experiment config and flags', true);
    }
  });

  it('runs accepted odd-but-valid flags to completion (tiny runs)', async () => {
    const valid: string[][] = [
      ['--set', 'student.schedule=none'],
      ['--set', 'runtime.checkpointEvery=0'],
      ['--set', 'runtime.keepCheckpoints=1', '--set', 'runtime.checkpointEvery=1'],
      ['--set', 'sft.steps=0', '--set', 'demonstrations.tasks=0'],
      ['--seed', '4294967295'],
    ];
    for (const extra of valid) {
      const out = fresh();
      const o = await call(experimentMain, ['--preset', 'smoke', ...tinySets, ...extra, '--out', out, '--no-progress']);
      expect(o.stderr, extra.join(' ')).not.toMatch(/internal error|\n\s+at /);
      expect(o.code, `${extra.join(' ')}: ${o.stderr}`).toBe(0);
      const cfg = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
      expect(summary.status).toBe('completed');
      if (extra[1] === 'runtime.keepCheckpoints=1')
        // stage ends (step 0) are kept, plus the newest periodic one
        expect(readdirSync(join(out, 'checkpoints')).filter((f) => !/-000000$/.test(f) && f !== 'LATEST')).toEqual([
          'student-000002',
        ]);
      if (extra[0] === '--seed') expect(cfg.seed).toBe(4294967295);
      count('experiment config and flags', false);
    }
  });
});

describe('deeply nested config values', () => {
  it('refuses --set values and config.json nested thousands of levels deep with one line naming the field', async () => {
    const rng = createRng(33);
    const area = 'nesting (--set, config.json)';
    for (let i = 0; i < 12; i++) {
      const depth = 33 + Math.floor(rng.next() * 20_000);
      const array = rng.next() < 0.5;
      const json = array ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      const where = ['set-twice', 'set-array', 'config.json'][i % 3]!;
      let o;
      if (where === 'config.json') {
        const dir = fresh();
        mkdirSync(dir);
        writeFileSync(join(dir, 'config.json'), `{"evaluation": {"temperatures": ${json}}}`);
        o = await callOrHang(experimentMain, ['--resume', dir, '--no-progress']);
      } else {
        const sets =
          where === 'set-twice'
            ? ['--set', `student=${json}`, '--set', `student=${json}`]
            : ['--set', `evaluation.temperatures=${json}`];
        o = await callOrHang(experimentMain, ['--preset', 'smoke', ...sets, '--out', fresh(), '--no-progress']);
      }
      const verdict = verdictOf(o, true);
      count(area, verdict);
      expect({ where, depth, verdict }).toEqual({ where, depth, verdict: 'refused' });
      expectRefusal(o!, 'experiment', `${where} ${depth}`);
      expect(o!.stderr).toMatch(/: (student|evaluation\.temperatures)\.[a0-9.]+…: nested deeper than 32 levels/);
    }
  });
});

// ------------------------------------------------------------------ damaged checkpoints

describe('damaged checkpoints and --resume', () => {
  it('refuses every damaged checkpoint with one line naming it', async () => {
    const rng = createRng(21);
    const names = Object.keys(REFUSED);
    for (let i = 0; i < 2 * names.length; i++) {
      const what = names[i % names.length]!;
      const dir = fresh();
      cpSync(base, dir, { recursive: true });
      REFUSED[what]!(dir, () => rng.next());
      const o = await call(experimentMain, ['--resume', dir, '--no-progress']);
      expectRefusal(o, 'experiment', what);
      count('damaged checkpoints + --resume', true);
    }
  });

  it('refuses a damaged student log (duplicated, out-of-order steps; gate statistics unlike the checkpoint) naming FILE:LINE', async () => {
    const rng = createRng(34);
    const names = Object.keys(LOG_DAMAGE);
    for (let i = 0; i < 3 * names.length; i++) {
      const what = names[i % names.length]!;
      const dir = fresh();
      cpSync(base, dir, { recursive: true });
      LOG_DAMAGE[what]!(dir, () => rng.next());
      const before = readFileSync(join(dir, 'metrics.jsonl'), 'utf8');
      const o = await callOrHang(experimentMain, ['--resume', dir, '--no-progress']);
      const verdict = verdictOf(o, true);
      count('damaged logs + --resume', verdict);
      expect({ what, verdict }).toEqual({ what, verdict: 'refused' });
      expectRefusal(o!, 'experiment', what);
      expect(o!.stderr, what).toMatch(/metrics\.jsonl:\d+: /);
      // refused before anything was trimmed or written
      expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe(before);
    }
  });

  it('resumes usable folders to the same summary as the undamaged run, leaving no leftover of a killed write', async () => {
    for (const [what, damage] of Object.entries(ACCEPTED)) {
      const dir = fresh();
      cpSync(base, dir, { recursive: true });
      damage(dir, () => 0.5);
      const o = await callOrHang(experimentMain, ['--resume', dir, '--no-progress'], 60_000);
      const same = (): boolean => {
        const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
        const left = [...readdirSync(dir), ...readdirSync(join(dir, 'checkpoints'))].filter(
          (n) => LEFTOVER.test(n) || n === '.lock',
        );
        return (
          JSON.stringify({ test: s.test, gate: s.gate }) ===
            JSON.stringify({ test: baseSummary.test, gate: baseSummary.gate }) && left.length === 0
        );
      };
      const verdict = verdictOf(o, false, same);
      count('damaged checkpoints + --resume', verdict);
      expect({ what, verdict, stderr: verdict === 'correct' ? '' : o?.stderr }).toEqual({
        what,
        verdict: 'correct',
        stderr: '',
      });
      if (/temp|\.old-/.test(what)) expect(o!.stderr, what).toMatch(/note: .*: removed \d+ leftover\(s\)/);
      if (/stale lock/.test(what)) expect(o!.stderr, what).toMatch(/note: .*: took over a stale lock \(pid \d+/);
    }
  });

  it('two resumes of one folder at once: one is refused naming the owner, the other completes its log once', async () => {
    const rng = createRng(35);
    for (let i = 0; i < 3; i++) {
      const dir = fresh();
      cpSync(base, dir, { recursive: true });
      const from = ['student-000002', 'student-000004', EARLIER][Math.floor(rng.next() * 3)]!;
      writeFileSync(join(dir, 'checkpoints', 'LATEST'), from);
      const [a, b] = await Promise.all([
        callOrHang(experimentMain, ['--resume', dir, '--no-progress'], 60_000),
        callOrHang(experimentMain, ['--resume', dir, '--no-progress'], 60_000),
      ]);
      const steps = readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => (JSON.parse(l) as { step: number }).step);
      const once = JSON.stringify(steps) === JSON.stringify([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const refusedOne = [a, b].filter((o) => o?.code === 2 && o.stderr.includes('is in use by another run')).length;
      const failed = [a, b].map((o) => verdictOf(o, false)).find((v) => v === 'crash' || v === 'hang');
      count('two resumes at once', failed ?? (once && refusedOne === 1 ? 'correct' : 'silently-wrong'));
      expect({ from, once, refusedOne, a: a?.code, b: b?.code }).toEqual({
        from,
        once: true,
        refusedOne: 1,
        a: 0,
        b: 2,
      });
      expectRefusal(b!, 'experiment', 'second resume');
      expect(existsSync(join(dir, '.lock'))).toBe(false);
    }
  });

  it('restarts a folder that stopped before its first checkpoint, to the same result as a fresh run', async () => {
    const dir = fresh();
    mkdirSync(dir);
    cpSync(join(base, 'config.json'), join(dir, 'config.json'));
    writeFileSync(join(dir, 'sft.jsonl'), '{"step": 1}\n{"st');
    const o = await call(experimentMain, ['--resume', dir, '--no-progress'], 60_000);
    expect(o.code, o.stderr).toBe(0);
    expect(o.stderr).toContain('restarting');
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(s.test).toEqual(baseSummary.test);
    expect(withoutTime(join(dir, 'metrics.jsonl'))).toEqual(withoutTime(join(base, 'metrics.jsonl')));
    count('damaged checkpoints + --resume', false);
  });
});

// ------------------------------------------------------------------ run folders, full disk

describe('run folders and the disk', () => {
  it('refuses --out that is a file, below a file, /proc, not empty or another run; accepts an empty folder', async () => {
    const aFile = join(tmp, 'a-file');
    writeFileSync(aFile, 'x');
    const notEmpty = fresh();
    mkdirSync(notEmpty);
    writeFileSync(join(notEmpty, 'metrics.jsonl'), '{"step": 1}\n');
    const outs = [aFile, join(aFile, 'below'), join(aFile, 'below', 'deeper'), '/proc/x', '/proc/x/y', notEmpty, base];
    for (const out of outs) {
      const o = await call(experimentMain, ['--preset', 'smoke', ...tinySets, '--out', out, '--no-progress']);
      expectRefusal(o, 'experiment', `--out ${out}`);
      count('read-only / full disk / broken presets', true);
    }
    const blank = await call(experimentMain, ['--preset', 'smoke', ...tinySets, '--no-progress', '--out', '']);
    expectRefusal(blank, 'experiment', '--out ""');
    expect(blank.stderr).toBe('experiment: --out: expected a folder path, got an empty string\n');
    count('read-only / full disk / broken presets', true);
    // the non-empty folder's own log is untouched
    expect(readFileSync(join(notEmpty, 'metrics.jsonl'), 'utf8')).toBe('{"step": 1}\n');
    const empty = fresh();
    mkdirSync(empty);
    const ok = await call(experimentMain, ['--preset', 'smoke', ...tinySets, '--out', empty, '--no-progress']);
    expect(ok.code, ok.stderr).toBe(0);
    count('read-only / full disk / broken presets', false);
  });

  it('a full disk while logging (a log on /dev/full) is one line saying so, and the run resumes afterwards', async () => {
    const dir = fresh();
    cpSync(base, dir, { recursive: true });
    writeFileSync(join(dir, 'checkpoints', 'LATEST'), EARLIER);
    rmSync(join(dir, 'events.jsonl'));
    symlinkSync('/dev/full', join(dir, 'events.jsonl'));
    const o = await call(experimentMain, ['--resume', dir, '--no-progress']);
    expectRefusal(o, 'experiment', 'ENOSPC');
    expect(o.stderr).toMatch(/events\.jsonl: no space left on the device \(ENOSPC\).*--resume/);
    count('read-only / full disk / broken presets', true);
    rmSync(join(dir, 'events.jsonl'));
    const again = await call(experimentMain, ['--resume', dir, '--no-progress'], 60_000);
    expect(again.code, again.stderr).toBe(0);
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(s.test).toEqual(baseSummary.test);
    count('read-only / full disk / broken presets', false);
  });
});

// ------------------------------------------------------------------ sweep and env flags

describe('sweep and env flags', () => {
  it('refuses bad sweep flags before any folder exists', async () => {
    const bad: string[][] = [
      ['--seeds', ''],
      ['--seeds', '1,,2'],
      ['--seeds', '1,1'],
      ['--seeds', '-1'],
      ['--seeds', '1.5'],
      ['--seeds', '4294967296'],
      ['--seeds', Array.from({ length: 1001 }, (_, i) => i).join(',')],
      ['--vary', 'student.shedule=never'],
      ['--vary', '__proto__=1,2'],
      ['--vary', 'constructor.x=1'],
      ['--vary', 'student.steps=1,1'],
      ['--vary', 'student.steps=1', '--vary', 'student.steps=2'],
      ['--vary', 'student.steps='],
      ['--vary', 'noequals'],
      ['--vary', 'seed=1,2'],
      ['--vary', 'model.width=16384'],
      ['--set', 'runtime.backend=webgl'],
      ['--backend', 'webgl'],
      ['--set', '__proto__.x=1'],
      ['--preset', 'nope'],
      ['--bogus'],
    ];
    for (const extra of bad) {
      const out = fresh();
      const argv = extra.includes('--preset') ? extra : ['--preset', 'smoke', ...extra];
      const o = await call(sweepMain, [...argv, '--out', out, '--no-progress']);
      expectRefusal(o, 'sweep', argv.join(' ').slice(0, 80));
      expect(existsSync(out)).toBe(false);
      count('sweep and env flags', true);
    }
    const aFile = join(tmp, 'sweep-file');
    writeFileSync(aFile, 'x');
    for (const out of [aFile, join(aFile, 'x'), '/proc/x', base]) {
      const o = await call(sweepMain, ['--preset', 'smoke', '--seeds', '0', '--out', out, '--no-progress']);
      expectRefusal(o, 'sweep', `--out ${out}`);
      count('sweep and env flags', true);
    }
  });

  it('refuses bad env flags with one line and accepts the valid ones', async () => {
    const rng = createRng(5);
    const flags = [
      '--seed',
      '--split',
      '--count',
      '--start',
      '--policy',
      '--style',
      '--misleading',
      '--penalty',
      '--tasks',
    ];
    const values = ['', '-1', '1e12', 'abc', '0', '1', '0.5', '2', 'test', 'explorer', 'compact', '\u001b[2J'];
    for (let i = 0; i < 60; i++) {
      const flag = flags[Math.floor(rng.next() * flags.length)]!;
      const value = values[Math.floor(rng.next() * values.length)]!;
      const cmd = ['shell', 'house', 'shop', 'calibrate', 'nope'][Math.floor(rng.next() * 5)]!;
      const argv = [cmd, flag, value, ...(cmd === 'calibrate' ? ['--tasks', '5'] : [])];
      const o = await call(envMain, argv);
      if (o.code === 0) {
        expect(o.stdout.length, argv.join(' ')).toBeGreaterThan(0);
        expect(o.stderr, argv.join(' ')).toBe('');
        count('sweep and env flags', false);
      } else {
        expectRefusal(o, 'env', argv.join(' '));
        count('sweep and env flags', true);
      }
    }
  });
});
