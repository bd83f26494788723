// Seeded, bounded fuzzing of the experiment, sweep and env commands, run in-process (cli/*.ts export main(argv, io)).
// Every generated input must end in one of two ways: refused as a user error (exit 2, exactly one `command: …`
// line on stderr, no stack frame, no "internal error"), or accepted with the right result (the value lands in the
// run's config; a damaged-but-usable run folder resumes to the same summary as the undamaged run). Never a
// defect (exit 1 with a stack) and never a hang (each call races a time limit).
// Damaged checkpoints come from one tiny smoke run made in beforeAll.
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as envMain } from '../../cli/env';
import { main as experimentMain } from '../../cli/experiment';
import { main as sweepMain } from '../../cli/sweep';
import type { CliIo } from '../../cli/cliMain';
import { applyOverrides, configKeys, DEFAULT_CONFIG, getConfigValue } from '../../src/core/experiment/config';
import { createRng } from '../../src/core/rng';

const tmp = mkdtempSync(join(tmpdir(), 'experiment-fuzz-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(tmp, `case-${n++}`);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a command in-process with buffered streams; a call that outlives `limitMs` counts as a hang. */
async function call(
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
function expectRefusal(o: Outcome, command: string, what: string): void {
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

/** Tally of outcomes per area, printed at the end (the table). */
const tally: Record<string, { tried: number; refused: number; accepted: number }> = {};
function count(area: string, refused: boolean): void {
  const t = (tally[area] ??= { tried: 0, refused: 0, accepted: 0 });
  t.tried++;
  if (refused) t.refused++;
  else t.accepted++;
}
afterAll(() => {
  console.log(
    Object.entries(tally)
      .map(([a, t]) => `${a}: tried ${t.tried}, refused ${t.refused}, accepted ${t.accepted}`)
      .join('\n'),
  );
});

/** Settings that make an accepted run take well under a second. */
const TINY = [
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
const tinySets = TINY.flatMap((s) => ['--set', s]);

/** The lines of a metrics log without wall-clock keys. */
const withoutTime = (path: string): Record<string, number>[] =>
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

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

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
  const BAD_VALUES = [
    '',
    ' ',
    '-1',
    '1e9',
    '1e400',
    'NaN',
    'Infinity',
    '0.5',
    'null',
    'true',
    '[]',
    '{}',
    '[1,',
    '"x"',
    'x'.repeat(500),
    '\u0007bell\u001b[31m',
    '0x10',
    '1_000',
    '99999999999999999999',
    '-0',
    '[1e9]',
    '[-1]',
    '["a"]',
    '{"__proto__":{"x":1}}',
  ];
  const BAD_KEYS = [
    '__proto__',
    '__proto__.x',
    'constructor',
    'constructor.prototype.x',
    'model.__proto__.width',
    'student.grpo.prototype',
    'toString',
    'model.width.x',
    'model',
    '.model.width',
    'model..width',
    'Model.Width',
    'hasOwnProperty',
  ];
  const FIXED: string[][] = [
    ['--set', 'runtime.backend=webgl'],
    ['--backend', 'webgl'],
    ['--backend', 'tpu'],
    ['--set', 'demonstrations.tasks=0'],
    ['--set', 'evaluation.passN=100000'],
    ['--set', 'model.width=16384'],
    ['--set', 'model.width=1024', '--set', 'model.layers=24', '--set', 'model.heads=8', '--set', 'model.mlp=4096'],
    ['--set', 'model.heads=3'],
    ['--set', 'evaluation.passK=[8]'],
    ['--set', 'evaluation.temperatures=[0.000001]'],
    ['--set', 'student.grpo.temperature=1e-9'],
    ['--set', 'student.grpo.groupSize=256', '--set', 'student.grpo.tasksPerStep=1024'],
    ['--set', 'seed=4294967296'],
    ['--seed', '-3'],
    ['--seed', 'abc'],
    ['--set', 'student.schedule=fixed:0'],
    ['--set', 'teacher.checkpoint=teachers/nowhere'],
    ['--set', 'teacher.checkpoint=/proc/self'],
    // a file named by a URL, a protocol-relative host or a scheme: refused naming the key, nothing fetched
    ['--set', 'teacher.checkpoint=http://OTHER-HOST/teachers/shell'],
    ['--set', 'teacher.checkpoint=//OTHER-HOST/teachers/shell'],
    ['--set', 'teacher.checkpoint=javascript:alert(1)'],
    ['--set', 'teacher.checkpoint=data:application/json,{}'],
    ['--set', 'teacher.checkpoint=java\tscript:alert(1)'],
    // seeds only in decimal digits; integers a number cannot hold exactly, quoted as typed
    ['--seed', '0x10'],
    ['--seed=-0'],
    ['--set', 'seed=0x10'],
    ['--set', 'env.seed=-0'],
    ['--set', 'student.steps=9007199254740993'],
    ['--set', 'noequals'],
    ['--set', '=1'],
    ['--preset', 'smok'],
    ['--preset', '../smoke'],
    ['--preset', ''],
    ['--frobnicate'],
    ['positional'],
    ['--resume', '/nonexistent/run', '--preset', 'smoke'],
  ];

  it('refuses every bad flag, key and value with one line, or accepts it with the value in the config', async () => {
    const cases: string[][] = [...FIXED];
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

// ------------------------------------------------------------------ damaged checkpoints

type Damage = (dir: string, r: () => number) => void;

const LAST = 'student-000010';
const EARLIER = 'student-000008';
const ck = (dir: string, name = LAST): string => join(dir, 'checkpoints', name);
const file = (dir: string, f: string, name = LAST): string => join(ck(dir, name), f);

/** Rewrite manifest.json so only the content checks (not the hashes) can catch the damage. */
function reseal(dir: string, name = LAST): void {
  const path = file(dir, 'manifest.json', name);
  const m = JSON.parse(readFileSync(path, 'utf8'));
  for (const f of Object.keys(m.files)) {
    const b = readFileSync(file(dir, f, name));
    m.files[f] = { bytes: b.byteLength, sha256: sha(b) };
  }
  writeFileSync(path, JSON.stringify(m));
}

function editModelJson(dir: string, edit: (m: { weightsManifest: { weights: { name: string }[] }[] }) => void): void {
  const path = file(dir, 'model.json');
  const m = JSON.parse(readFileSync(path, 'utf8'));
  edit(m);
  writeFileSync(path, JSON.stringify(m));
}

function editState(dir: string, edit: (s: Record<string, unknown>) => void, name = LAST): void {
  const path = file(dir, 'state.json', name);
  const s = JSON.parse(readFileSync(path, 'utf8'));
  edit(s);
  writeFileSync(path, JSON.stringify(s));
}

/** Byte offset and length of a named tensor in weights.bin. */
function locate(dir: string, name: string): { offset: number; bytes: number } {
  const m = JSON.parse(readFileSync(file(dir, 'model.json'), 'utf8'));
  let offset = 0;
  for (const w of m.weightsManifest[0].weights as { name: string; shape: number[] }[]) {
    const bytes = 4 * w.shape.reduce((a, b) => a * b, 1);
    if (w.name === name) return { offset, bytes };
    offset += bytes;
  }
  throw new Error(`no ${name}`);
}

/** Drop tensors whose name matches from model.json and weights.bin (consistently), then reseal. */
function dropTensors(dir: string, match: (name: string) => boolean): void {
  const m = JSON.parse(readFileSync(file(dir, 'model.json'), 'utf8'));
  const bin = readFileSync(file(dir, 'weights.bin'));
  const keep: Buffer[] = [];
  let offset = 0;
  const weights = m.weightsManifest[0].weights as { name: string; shape: number[] }[];
  for (const w of weights) {
    const bytes = 4 * w.shape.reduce((a, b) => a * b, 1);
    if (!match(w.name)) keep.push(bin.subarray(offset, offset + bytes));
    offset += bytes;
  }
  m.weightsManifest[0].weights = weights.filter((w) => !match(w.name));
  writeFileSync(file(dir, 'model.json'), JSON.stringify(m));
  writeFileSync(file(dir, 'weights.bin'), Buffer.concat(keep));
  reseal(dir);
}

const REFUSED: Record<string, Damage> = {
  'weights.bin truncated': (d, r) => {
    const b = readFileSync(file(d, 'weights.bin'));
    writeFileSync(file(d, 'weights.bin'), b.subarray(0, Math.floor(r() * b.length)));
  },
  'weights.bin truncated, manifest resealed': (d, r) => {
    const b = readFileSync(file(d, 'weights.bin'));
    writeFileSync(file(d, 'weights.bin'), b.subarray(0, Math.floor(r() * b.length)));
    reseal(d);
  },
  'weights.bin with extra bytes, resealed': (d, r) => {
    const b = readFileSync(file(d, 'weights.bin'));
    writeFileSync(file(d, 'weights.bin'), Buffer.concat([b, Buffer.alloc(1 + Math.floor(r() * 64))]));
    reseal(d);
  },
  'finite garbage bytes in weights.bin': (d, r) => {
    const b = readFileSync(file(d, 'weights.bin'));
    const at = 4 * Math.floor((r() * b.length) / 4);
    b.writeFloatLE(0.5 + r(), at);
    writeFileSync(file(d, 'weights.bin'), b);
  },
  'NaN in a student weight, resealed': (d, r) => {
    const { offset, bytes } = locate(d, 'student/h0/mlp/fc/w');
    const b = readFileSync(file(d, 'weights.bin'));
    b.writeFloatLE(NaN, offset + 4 * Math.floor((r() * bytes) / 4));
    writeFileSync(file(d, 'weights.bin'), b);
    reseal(d);
  },
  'Infinity in an Adam moment, resealed': (d) => {
    const m = JSON.parse(readFileSync(file(d, 'model.json'), 'utf8'));
    const name = (m.weightsManifest[0].weights as { name: string }[]).find((w) => w.name.endsWith('/v'))!.name;
    const { offset } = locate(d, name);
    const b = readFileSync(file(d, 'weights.bin'));
    b.writeFloatLE(Infinity, offset);
    writeFileSync(file(d, 'weights.bin'), b);
    reseal(d);
  },
  'weights.bin from another step': (d) => {
    cpSync(file(d, 'weights.bin', EARLIER), file(d, 'weights.bin'));
  },
  'weights.bin from another step, resealed (the size matches)': (d) => {
    cpSync(file(d, 'weights.bin', EARLIER), file(d, 'weights.bin'));
    editState(d, (s) => s);
    reseal(d);
  },
  'whole checkpoint folder from another step': (d) => {
    rmSync(ck(d), { recursive: true });
    cpSync(ck(d, EARLIER), ck(d), { recursive: true });
  },
  'model.json null': (d) => writeFileSync(file(d, 'model.json'), 'null'),
  'model.json null, resealed': (d) => {
    writeFileSync(file(d, 'model.json'), 'null');
    reseal(d);
  },
  'model.json truncated': (d, r) => {
    const b = readFileSync(file(d, 'model.json'));
    writeFileSync(file(d, 'model.json'), b.subarray(0, Math.floor(r() * b.length)));
    reseal(d);
  },
  'model.json with a bad dtype, resealed': (d) => {
    editModelJson(d, (m) => {
      (m.weightsManifest[0]!.weights[0] as { dtype?: string }).dtype = 'float16';
    });
    reseal(d);
  },
  'model.json with a negative shape, resealed': (d) => {
    editModelJson(d, (m) => {
      (m.weightsManifest[0]!.weights[1] as { shape?: number[] }).shape = [-1, 4];
    });
    reseal(d);
  },
  'model.json weight listed twice, resealed': (d) => {
    editModelJson(d, (m) => {
      const w = m.weightsManifest[0]!.weights;
      w[1] = { ...w[0]! };
    });
    reseal(d);
  },
  'state.json version 2, resealed': (d) => {
    editState(d, (s) => (s.version = 2));
    reseal(d);
  },
  'state.json null, resealed': (d) => {
    writeFileSync(file(d, 'state.json'), 'null');
    reseal(d);
  },
  'state.json step changed, resealed': (d) => {
    editState(d, (s) => (s.step = 15));
    reseal(d);
  },
  'state.json config changed, resealed': (d) => {
    editState(d, (s) => ((s.config as { seed: number }).seed = 99));
    reseal(d);
  },
  'student weights renamed, resealed': (d) => {
    editModelJson(d, (m) => {
      for (const w of m.weightsManifest[0]!.weights) w.name = w.name.replace(/^student\//, 'studnet/');
    });
    reseal(d);
  },
  'one student weight missing, resealed': (d) => dropTensors(d, (n) => n === 'student/head/b'),
  'all optimizer entries missing, resealed': (d) => dropTensors(d, (n) => n.startsWith('optimizer/')),
  'Adam second moments missing, resealed': (d) => dropTensors(d, (n) => n.startsWith('optimizer/') && n.endsWith('/v')),
  'Adam step count missing, resealed': (d) => dropTensors(d, (n) => n === 'optimizer/iter'),
  'teacher missing, resealed': (d) => dropTensors(d, (n) => n.startsWith('teacher/')),
  'manifest.json deleted': (d) => rmSync(file(d, 'manifest.json')),
  'manifest.json garbage': (d, r) => writeFileSync(file(d, 'manifest.json'), Buffer.from([r() * 255, 0, 1, 2])),
  'manifest.json says another stage': (d) => {
    const m = JSON.parse(readFileSync(file(d, 'manifest.json'), 'utf8'));
    m.stage = 'teacher';
    writeFileSync(file(d, 'manifest.json'), JSON.stringify(m));
  },
  'state.json deleted': (d) => rmSync(file(d, 'state.json')),
  'weights.bin is a folder': (d) => {
    rmSync(file(d, 'weights.bin'));
    mkdirSync(file(d, 'weights.bin'));
  },
  'an unlisted file in the checkpoint': (d) => writeFileSync(file(d, 'extra.bin'), 'x'),
  'LATEST names a missing checkpoint': (d) => writeFileSync(join(d, 'checkpoints', 'LATEST'), 'student-000099'),
  'LATEST is a path': (d) => writeFileSync(join(d, 'checkpoints', 'LATEST'), '../../etc'),
  'LATEST is binary': (d) => writeFileSync(join(d, 'checkpoints', 'LATEST'), Buffer.from([0, 255, 10, 7])),
  'LATEST deleted, checkpoints remain': (d) => rmSync(join(d, 'checkpoints', 'LATEST')),
  // state.json edited by hand, manifest recomputed: the state checked against its config and itself
  'state.json S_T 1e9, resealed': (d) => {
    editState(d, (s) => (s.teacherPerformance = 1e9));
    reseal(d);
  },
  'state.json schedule name contradicts the config, resealed': (d) => {
    editState(d, (s) => ((s.schedule as { schedule: string }).schedule = 'never'));
    reseal(d);
  },
  'state.json fractional last_step, resealed': (d) => {
    editState(d, (s) => ((s.schedule as { last_step: number }).last_step = 9.5));
    reseal(d);
  },
  'state.json gate window size contradicts the config, resealed': (d) => {
    editState(d, (s) => ((s.schedule as { gate: { config: { window_size: number } } }).gate.config.window_size = 3));
    reseal(d);
  },
  'state.json gate forged to retire at step 3 (W = 5), resealed': (d) => {
    editState(d, (s) => ((s.schedule as { gate: { trigger_step: number } }).gate.trigger_step = 3));
    reseal(d);
  },
  'state.json gate of step 8 forged retired at step 3, resealed': (d) => {
    writeFileSync(join(d, 'checkpoints', 'LATEST'), EARLIER);
    editState(
      d,
      (s) => Object.assign((s.schedule as { gate: object }).gate, { retired: true, trigger_step: 3, opd_coef: 0 }),
      EARLIER,
    );
    reseal(d, EARLIER);
  },
  // the run's logs must hold every step the checkpoint has done
  'metrics.jsonl deleted': (d) => rmSync(join(d, 'metrics.jsonl')),
  'metrics.jsonl without its first steps': (d) => {
    const lines = readFileSync(join(d, 'metrics.jsonl'), 'utf8').split('\n');
    writeFileSync(join(d, 'metrics.jsonl'), lines.slice(3).join('\n'));
  },
  'sft.jsonl deleted': (d) => rmSync(join(d, 'sft.jsonl')),
  'config.json changed': (d) => {
    const c = JSON.parse(readFileSync(join(d, 'config.json'), 'utf8'));
    c.student.lambdaOpd = 0.25;
    writeFileSync(join(d, 'config.json'), JSON.stringify(c));
  },
  'config.json is a folder': (d) => {
    rmSync(join(d, 'config.json'));
    mkdirSync(join(d, 'config.json'));
  },
};

const ACCEPTED: Record<string, Damage> = {
  'an older checkpoint deleted': (d) => rmSync(ck(d, 'student-000004'), { recursive: true }),
  'a hidden file in the checkpoint': (d) => writeFileSync(file(d, '.DS_Store'), 'x'),
  'LATEST with a trailing newline': (d) => writeFileSync(join(d, 'checkpoints', 'LATEST'), `${LAST}\n`),
  'a stray temp folder': (d) => mkdirSync(join(d, 'checkpoints', '.tmp-student-000025-1-2-3')),
  'LATEST points at an earlier good checkpoint': (d) => writeFileSync(join(d, 'checkpoints', 'LATEST'), EARLIER),
  'config.json with a BOM': (d) =>
    writeFileSync(join(d, 'config.json'), `\uFEFF${readFileSync(join(d, 'config.json'), 'utf8')}`),
};

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

  it('resumes usable folders to the same summary as the undamaged run', async () => {
    for (const [what, damage] of Object.entries(ACCEPTED)) {
      const dir = fresh();
      cpSync(base, dir, { recursive: true });
      damage(dir, () => 0.5);
      const o = await call(experimentMain, ['--resume', dir, '--no-progress'], 60_000);
      expect(o.stderr, what).not.toMatch(/internal error|\n\s+at /);
      expect(o.code, `${what}: ${o.stderr}`).toBe(0);
      const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
      expect({ what, test: s.test, gate: s.gate }).toEqual({ what, test: baseSummary.test, gate: baseSummary.gate });
      count('damaged checkpoints + --resume', false);
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
