// A seeded, bounded generator of bad or odd inputs for `npm run replay`, built from the shipped fixtures: harmless
// variations of a valid log (which must replay to the fixture's own trigger step) and damaged or hostile ones (which
// must be refused with one line naming the file, and the line where one is given here). Deterministic for a seed.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/replay');
const read = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

/** What the replay must do with a case. */
export type Expectation =
  /** exit 0 and the same trigger step as the unmodified fixture */
  | { kind: 'reference' }
  /** exit 2, one line naming `file` (and `line` when given) */
  | { kind: 'refuse'; file: string; line?: number }
  /** either: refused as above, or accepted (the input may still be a valid log, e.g. truncated at a line end) */
  | { kind: 'either'; file: string };

export interface FuzzCase {
  readonly name: string;
  /** The fixture it derives from (its reference trigger step applies to 'reference' cases). */
  readonly base: BaseName;
  /** File name → content, in argument order. Strings are UTF-8 encoded; bytes are passed as they are. */
  readonly files: ReadonlyArray<readonly [string, string | Uint8Array]>;
  readonly args: readonly string[];
  readonly expect: Expectation;
}

/** The fixtures and the arguments their README gives. */
export const BASES = {
  verl: {
    files: [['verl_retire_opd.jsonl', read('verl_retire_opd.jsonl')]],
    args: ['--teacher-performance', '0.8'],
  },
  trl: { files: [['trainer_state.json', read('trl_trainer_state.json')]], args: ['--teacher-performance', '0.9'] },
  tensorboard: {
    files: [
      [
        'run-grpo_opd-tag-skillsd_teacher_student_gap_mean.csv',
        read('run-grpo_opd-tag-skillsd_teacher_student_gap_mean.csv'),
      ],
      ['run-grpo_opd-tag-val_success_rate.csv', read('run-grpo_opd-tag-val_success_rate.csv')],
    ],
    args: ['--teacher-performance', '0.75', '--window', '4', '--alignment-threshold', '0.05'],
  },
  simple: { files: [['simple.jsonl', read('simple.jsonl')]], args: ['--teacher-performance', '0.7', '--window', '3'] },
  lab: { files: [['metrics.jsonl', read('lab_metrics.jsonl')]], args: ['--teacher-performance', '0.6'] },
} as const satisfies Record<string, { files: ReadonlyArray<readonly [string, string]>; args: readonly string[] }>;
export type BaseName = keyof typeof BASES;

/** mulberry32: a small seeded generator, enough to pick mutations reproducibly. */
function rngOf(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T,
  };
}

const lines = (text: string) => text.replace(/\n$/, '').split('\n');
const unlines = (rows: readonly string[]) => `${rows.join('\n')}\n`;
const JSONL_BASES = ['verl', 'simple', 'lab'] as const;

/** Harmless variations: each must replay to the reference trigger step. */
function variations(): FuzzCase[] {
  const out: FuzzCase[] = [];
  const each = (label: string, f: (text: string, name: string, base: BaseName) => string | null) => {
    for (const base of Object.keys(BASES) as BaseName[]) {
      const b = BASES[base];
      const files = b.files.map(([name, text]) => [name, f(text, name, base)] as const);
      if (files.some(([, t]) => t === null)) continue;
      out.push({
        name: `${base}: ${label}`,
        base,
        files: files as [string, string][],
        args: b.args,
        expect: { kind: 'reference' },
      });
    }
  };
  each('UTF-8 BOM', (t) => `\uFEFF${t}`);
  each('CRLF line ends', (t) => t.replace(/\n/g, '\r\n'));
  each('lone CR line ends', (t, _n, base) => (base === 'trl' ? null : t.replace(/\n/g, '\r')));
  each('no final newline', (t) => t.replace(/\n$/, ''));
  each('blank lines before and after', (t, _n, base) => (base === 'tensorboard' ? null : `\n\n${t}\n\n\n`));
  each('whitespace around each line', (t, _n, base) =>
    JSONL_BASES.includes(base as never) ? unlines(lines(t).map((l) => ` \t${l}  `)) : null,
  );
  each('BOM and CRLF', (t) => `\uFEFF${t.replace(/\n/g, '\r\n')}`);
  each('an unrelated key with text, NaN and a long string', (t, _n, base) =>
    JSONL_BASES.includes(base as never)
      ? unlines(
          lines(t).map((l, i) =>
            l.replace(/^\{/, `{"note${i}":"a } \\" [ NaN","x":NaN,"big":"${'z'.repeat(i === 3 ? 200_000 : 5)}",`),
          ),
        )
      : null,
  );
  each('keys reordered (step last)', (t, _n, base) =>
    JSONL_BASES.includes(base as never)
      ? unlines(
          lines(t).map((l) => {
            const m = /^\{"step":(\d+),(.*)\}$/.exec(l);
            return m ? `{${m[2]},"step":${m[1]}}` : l;
          }),
        )
      : null,
  );
  each('steps written as integer-valued floats', (t, _n, base) =>
    base === 'tensorboard' ? t.replace(/^([^,\n]+),(\d+),/gm, '$1,$2.0,') : null,
  );
  each('every cell quoted', (t, _n, base) =>
    base === 'tensorboard'
      ? unlines(
          lines(t).map((l) =>
            l
              .split(',')
              .map((c) => `"${c}"`)
              .join(','),
          ),
        )
      : null,
  );
  each('an extra column with multi-line quoted cells', (t, _n, base) =>
    base === 'tensorboard'
      ? unlines(lines(t).map((l, i) => `${l},${i === 0 ? 'note' : `"line one\nline ${i}"`}`))
      : null,
  );
  each('pretty-printed with tabs and CRLF', (t, _n, base) =>
    base === 'trl' ? JSON.stringify(JSON.parse(t.replace(/NaN/g, 'null')), null, '\t').replace(/\n/g, '\r\n') : null,
  );
  each('compact on one line', (t, _n, base) =>
    base === 'trl' ? JSON.stringify(JSON.parse(t.replace(/NaN/g, 'null'))) : null,
  );
  // Larger than the 64 kB head the format is detected from, so every parser reads it in many uneven chunks: rows,
  // quoted cells and trainer_state.json entries cut anywhere.
  each('padded past the 64 kB head (read in chunks)', (t, _n, base) => {
    if (base === 'trl')
      return t.replace('{', `{\n  "notes": "\\"log_history\\": [ not the key ${'n'.repeat(100_000)}",`);
    if (base === 'tensorboard') {
      return unlines(lines(t).map((l, i) => `${l},${i === 0 ? 'note' : `"${'x'.repeat(3000)}\n""q"", ${i}"`}`));
    }
    return unlines(lines(t).map((l) => l.replace(/^(\s*)\{/, `$1{"pad":"${'p'.repeat(5000)}",`)));
  });
  // The joined pair in the other order.
  out.push({
    name: 'tensorboard: files given in the other order',
    base: 'tensorboard',
    files: [...BASES.tensorboard.files].reverse(),
    args: BASES.tensorboard.args,
    expect: { kind: 'reference' },
  });
  return out;
}

/** Ways to break one JSON-lines log; each returns the text and what must happen, or null to skip. */
type Breaker = (rows: string[], rng: ReturnType<typeof rngOf>, file: string) => [string, Expectation] | null;

/** Index of the first row matching; throws when there is none (a generator defect, not a replay finding). */
const lineOfStep = (rows: readonly string[], pred: (row: string) => boolean) => {
  const i = rows.findIndex(pred);
  if (i < 0) throw new Error('fuzz generator: no row to mutate');
  return i;
};
/** 1-based line of a character offset. */
const lineAt = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

const JSONL_BREAKERS: Record<string, Breaker> = {
  'a gap made NaN': (rows, _r, file) => {
    const i = lineOfStep(rows, (l) => /_gap_mean":-?\d|"gap":-?\d/.test(l));
    rows[i] = (rows[i] as string).replace(/(gap(_mean)?":)-?[\d.e-]+/, '$1NaN');
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a validation score made Infinity': (rows, _r, file) => {
    const i = lineOfStep(rows, (l) => /"val(\/success_rate)?":\d/.test(l));
    rows[i] = (rows[i] as string).replace(/("val(\/success_rate)?":)[\d.e-]+/, '$1Infinity');
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a blank step " "': (rows, r, file) => {
    const i = 1 + r.int(rows.length - 1);
    rows[i] = (rows[i] as string).replace(/"step":\d+/, '"step":" "');
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a bad step': (rows, r, file) => {
    const i = 1 + r.int(rows.length - 1);
    const bad = r.pick([
      '-1',
      '1.5',
      '"0x10"',
      'true',
      '1e20',
      '9007199254740993',
      '"12abc"',
      '[]',
      '{}',
      'null',
      '""',
    ]);
    rows[i] = (rows[i] as string).replace(/"step":\d+/, `"step":${bad}`);
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a gap of the wrong type': (rows, r, file) => {
    const i = lineOfStep(rows, (l) => /_gap_mean":-?\d|"gap":-?\d/.test(l));
    const bad = r.pick(['"abc"', 'true', '{"x":1}', '[1]', '"\\u001b[2J\\u0007"', '1e300', '-1e13']);
    rows[i] = (rows[i] as string).replace(/(gap(_mean)?":)-?[\d.e-]+/, `$1${bad}`);
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a duplicated line': (rows, r, file) => {
    const i = lineOfStep(rows, (l) => /_gap_mean":-?\d|"gap":-?\d/.test(l)) + r.int(3);
    rows.splice(i + 1, 0, rows[i] as string);
    return [unlines(rows), { kind: 'refuse', file, line: i + 2 }];
  },
  'two lines swapped': (rows, r, file) => {
    const i = 2 + r.int(rows.length - 4);
    [rows[i], rows[i + 1]] = [rows[i + 1] as string, rows[i] as string];
    return [unlines(rows), { kind: 'refuse', file, line: i + 2 }];
  },
  'truncated anywhere': (rows, r, file) => {
    const text = unlines(rows);
    return [text.slice(0, 1 + r.int(text.length - 1)), { kind: 'either', file }];
  },
  'truncated mid-line': (rows, r, file) => {
    const i = 1 + r.int(rows.length - 2);
    const row = rows[i] as string;
    return [
      `${unlines(rows.slice(0, i))}${row.slice(0, 1 + r.int(row.length - 2))}\n`,
      { kind: 'refuse', file, line: i + 1 },
    ];
  },
  'a line of binary garbage': (rows, r, file) => {
    const i = r.int(rows.length);
    // Any character but a line break (which would make it two lines).
    rows[i] = Array.from({ length: 40 + r.int(200) }, () => String.fromCharCode(14 + r.int(0x2ff))).join('');
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a BOM in the middle': (rows, r, file) => {
    const i = 1 + r.int(rows.length - 1);
    rows[i] = `\uFEFF${rows[i] as string}`;
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'deep nesting in a line': (rows, r, file) => {
    const i = r.int(rows.length);
    const depth = r.pick([100, 5_000, 200_000]);
    rows[i] = `{"step":1,"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a JSON value that is not an object': (rows, r, file) => {
    const i = r.int(rows.length);
    rows[i] = r.pick(['[1,2]', '42', '"text"', 'null', 'true', 'NaN']);
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a line missing its step': (rows, r, file) => {
    const i = r.int(rows.length);
    rows[i] = (rows[i] as string).replace(/"step":\d+,?/, '');
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a key with control characters holding the gap': (rows, _r, file) => {
    const text = unlines(rows).replace(/"(gap|[a-z]+\/teacher_student_gap_mean)":/g, '"g\\u001b[31map\\u0000":');
    return [text, { kind: 'refuse', file, line: 1 }];
  },
  'a line of 17 M characters': (rows, _r, file) => [
    `${rows[0]}\n{"step":999,"x":"${'a'.repeat(17 * 1024 * 1024)}`,
    { kind: 'refuse', file, line: 2 },
  ],
  'a huge step number': (rows, _r, file) => {
    const last = rows.length - 1;
    rows[last] = (rows[last] as string).replace(/"step":\d+/, '"step":123456789012345678901234567890');
    return [unlines(rows), { kind: 'refuse', file, line: last + 1 }];
  },
  'a random character replaced': (rows, r, file) => {
    const text = unlines(rows);
    const at = r.int(text.length);
    const ch = r.pick(['"', '{', '}', ',', ':', '\u0000', '\uFFFD', 'x', '9', '\\', '\n', '-']);
    return [text.slice(0, at) + ch + text.slice(at + 1), { kind: 'either', file }];
  },
  'a random line deleted': (rows, r, file) => {
    rows.splice(r.int(rows.length), 1);
    return [unlines(rows), { kind: 'either', file }];
  },
  '__proto__ and constructor keys': (rows, r, _file) => {
    const i = r.int(rows.length);
    rows[i] = (rows[i] as string).replace(/^\{/, '{"__proto__":{"polluted":1},"constructor":{"prototype":1},');
    return [unlines(rows), { kind: 'reference' }];
  },
};

const CSV_BREAKERS: Record<string, Breaker> = {
  'a blank step': (rows, r, file) => {
    const i = 1 + r.int(rows.length - 1);
    rows[i] = (rows[i] as string).replace(/^([^,]*),\d+,/, '$1, ,');
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a bad step': (rows, r, file) => {
    const i = 1 + r.int(rows.length - 1);
    const bad = r.pick(['-3', '2.5', '0x10', 'abc', '1e30', 'nan', 'inf']);
    rows[i] = (rows[i] as string).replace(/^([^,]*),\d+,/, `$1,${bad},`);
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a second step column': (rows, _r, file) => {
    rows[0] = `${rows[0] as string},global_step`;
    for (let i = 1; i < rows.length; i++) rows[i] = `${rows[i] as string},${i * 10}`;
    return [unlines(rows), { kind: 'refuse', file, line: 1 }];
  },
  'no step column': (rows, _r, file) => {
    rows[0] = (rows[0] as string).replace('Step', 'Iteration');
    return [unlines(rows), { kind: 'refuse', file, line: 1 }];
  },
  'a short row': (rows, r, file) => {
    const i = 1 + r.int(rows.length - 1);
    rows[i] = (rows[i] as string).replace(/,[^,]*$/, '');
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a value made NaN or text': (rows, r, file) => {
    const i = 1 + r.int(rows.length - 1);
    const bad = r.pick(['nan', 'inf', '-Infinity', 'abc', '0x1F', '1,5']);
    rows[i] = (rows[i] as string).replace(/,[^,]*$/, `,${bad}`);
    // A non-finite gap after the teacher retired (step 32 in this fixture) is a placeholder the gate never reads.
    const step = Number((rows[i] as string).split(',')[1]);
    const placeholder = file.includes('gap') && ['nan', 'inf', '-Infinity'].includes(bad) && step > 32;
    return [unlines(rows), placeholder ? { kind: 'reference' } : { kind: 'refuse', file, line: i + 1 }];
  },
  'an unterminated quote': (rows, r, file) => {
    const i = 1 + r.int(rows.length - 1);
    rows[i] = (rows[i] as string).replace(/,([^,]*)$/, ',"$1');
    return [unlines(rows), { kind: 'refuse', file, line: i + 1 }];
  },
  'a multi-line cell, then a bad step below it': (rows, r, file) => {
    rows[0] = `${rows[0] as string},note`;
    for (let i = 1; i < rows.length; i++) rows[i] = `${rows[i] as string},"a\nb\r\nc"`;
    const i = 2 + r.int(rows.length - 2);
    rows[i] = (rows[i] as string).replace(/^([^,]*),\d+,/, '$1,x,');
    // Rows 1..i-1 each span 3 lines.
    return [unlines(rows), { kind: 'refuse', file, line: 2 + 3 * (i - 1) }];
  },
  'rows out of order': (rows, r, file) => {
    const i = 2 + r.int(rows.length - 3);
    [rows[i], rows[i + 1]] = [rows[i + 1] as string, rows[i] as string];
    return [unlines(rows), { kind: 'refuse', file, line: i + 2 }];
  },
  'a duplicated row': (rows, r, file) => {
    const i = 1 + r.int(rows.length - 1);
    rows.splice(i + 1, 0, rows[i] as string);
    return [unlines(rows), { kind: 'refuse', file, line: i + 2 }];
  },
  'a header of binary bytes': (rows, r, file) => {
    rows[0] = Array.from({ length: 300 }, () => String.fromCharCode(1 + r.int(0x7f))).join('');
    return [unlines(rows), { kind: 'refuse', file }];
  },
  'truncated anywhere': (rows, r, file) => {
    const text = unlines(rows);
    return [text.slice(0, 1 + r.int(text.length - 1)), { kind: 'either', file }];
  },
};

const TRL_BREAKERS: Record<string, (text: string, r: ReturnType<typeof rngOf>, file: string) => [string, Expectation]> =
  {
    truncated: (t, r, file) => [t.slice(0, 1 + r.int(t.length - 2)), { kind: 'refuse', file }],
    'deeply nested': (_t, r, file) => {
      const d = r.pick([65, 10_000, 1_000_000]);
      return [`{"log_history": ${'['.repeat(d)}${']'.repeat(d)}}`, { kind: 'refuse', file, line: 1 }];
    },
    'deeply nested objects inside an entry': (t, _r, file) => [
      t.replace('"step": 1', `"deep": ${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}, "step": 1`),
      { kind: 'refuse', file, line: lineAt(t, t.indexOf('"step": 1')) },
    ],
    'log_history not an array': (_t, r, file) => [
      `{"log_history": ${r.pick(['{}', 'null', '3', '"x"'])}}`,
      { kind: 'refuse', file, line: 1 },
    ],
    'an entry that is not an object': (t, _r, file) => [
      t.replace('"log_history": [', '"log_history": [\n    7,'),
      { kind: 'refuse', file },
    ],
    'a blank step': (t, _r, file) => [t.replace('"step": 3\n', '"step": " "\n'), { kind: 'refuse', file }],
    'a NaN gap': (t, _r, file) => [
      t.replace(/("opd\/teacher_student_gap_mean": )-?[\d.]+/, '$1NaN'),
      { kind: 'refuse', file, line: lineAt(t, t.indexOf('{', t.indexOf('"log_history"'))) },
    ],
    'not a trainer state': (_t, r, file) => [
      r.pick(['{}', '{"a": [1,2,3]}', '[]', '{"log_history": [}']),
      { kind: 'refuse', file },
    ],
    'a random character replaced': (t, r, file) => {
      const at = r.int(t.length);
      return [t.slice(0, at) + r.pick(['"', '{', ']', ',', '\u0000', 'N']) + t.slice(at + 1), { kind: 'either', file }];
    },
  };

/** Whole-file oddities, the same for every format. */
function wholeFiles(r: ReturnType<typeof rngOf>): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const add = (name: string, content: string | Uint8Array, args = BASES.simple.args, file = 'log.jsonl') =>
    cases.push({ name, base: 'simple', files: [[file, content]], args, expect: { kind: 'refuse', file } });
  add('an empty file', '');
  add('only whitespace', ' \n\t\r\n  \n');
  add('only a BOM', '\uFEFF');
  add('a BOM and blank lines', '\uFEFF\n\n');
  add('a gzip header', Uint8Array.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd]));
  add('a PNG header', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48]));
  add('an ELF header', Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0x3e, 0]));
  const utf16 = (s: string) => {
    const out = new Uint8Array(2 + s.length * 2);
    out[0] = 0xff;
    out[1] = 0xfe;
    for (let i = 0; i < s.length; i++) out[2 + 2 * i] = s.charCodeAt(i) & 0xff;
    return out;
  };
  add('UTF-16 text', utf16(BASES.simple.files[0][1]));
  add('UTF-16 CSV', utf16(BASES.tensorboard.files[0][1]), BASES.simple.args, 'log.csv');
  for (let i = 0; i < 12; i++) {
    const bytes = Uint8Array.from({ length: 1 + r.int(3000) }, () => r.int(256));
    add(`random bytes #${i + 1}`, bytes, BASES.simple.args, r.pick(['log.jsonl', 'log.csv', 'trainer_state.json']));
  }
  for (let i = 0; i < 8; i++) {
    const text = Array.from({ length: 1 + r.int(400) }, () =>
      r.pick(['{', '}', '[', ']', '"', ',', ':', 'NaN', '1', '\n', ' ', 'step', '\r']),
    ).join('');
    cases.push({
      name: `random JSON-ish tokens #${i + 1}`,
      base: 'simple',
      files: [['log.jsonl', text]],
      args: BASES.simple.args,
      expect: { kind: 'either', file: 'log.jsonl' },
    });
  }
  add('a CSV of only a header', 'step,gap,val\n', BASES.simple.args, 'log.csv');
  add('a CSV without a gap column', 'step,val\n1,0.5\n2,0.6\n', BASES.simple.args, 'log.csv');
  add('JSON lines without a validation score', '{"step":1,"gap":-1}\n{"step":2,"gap":-0.5}\n');
  add('a file name with control characters', '', BASES.simple.args, 'log\u001b[31m.jsonl');
  // Joined files that do not overlap: refused (a replay of them would retire beyond every gap).
  const [gapFile, valFile] = BASES.tensorboard.files;
  const shifted = valFile[1].replace(/^([^,\n]+),(\d+),/gm, (_m, w: string, s: string) => `${w},${Number(s) + 1000},`);
  cases.push({
    name: 'tensorboard: validation steps that do not overlap the gap steps',
    base: 'tensorboard',
    files: [gapFile, [valFile[0], shifted]],
    args: BASES.tensorboard.args,
    expect: { kind: 'refuse', file: valFile[0], line: 2 },
  });
  cases.push({
    name: 'tensorboard: the same file twice',
    base: 'tensorboard',
    files: [gapFile, gapFile],
    args: BASES.tensorboard.args,
    expect: { kind: 'refuse', file: gapFile[0] },
  });
  return cases;
}

/**
 * Failures found by hostile testing, kept fixed: keys matched by dropping characters, a file that switches format
 * half-way, a NaN gap after retirement (a placeholder the gate never reads), an integer a number cannot hold.
 */
function trustCases(): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const simple = BASES.simple.files[0][1];
  const renamed = (gap: string, val: string) =>
    simple.replace(/"gap":/g, `${JSON.stringify(gap)}:`).replace(/"val":/g, `${JSON.stringify(val)}:`);
  const add = (name: string, base: BaseName, text: string, args: readonly string[], expect: Expectation) =>
    cases.push({ name, base, files: [[BASES[base].files[0][0], text]], args, expect });
  const file = BASES.simple.files[0][0];
  // An absent key in another script matched the present one when non-ASCII characters were dropped.
  add(
    'keys: an absent Chinese --val-key',
    'simple',
    renamed('差距', '准确率'),
    [...BASES.simple.args, ...['--gap-key', '差距', '--val-key', '成功率']],
    { kind: 'refuse', file, line: 1 },
  );
  add(
    'keys: an absent Russian --gap-key',
    'simple',
    renamed('разрыв', 'точность'),
    [...BASES.simple.args, ...['--gap-key', 'ошибка', '--val-key', 'точность']],
    { kind: 'refuse', file, line: 1 },
  );
  add('keys: "-" is not "_"', 'simple', renamed('my-gap', 'val'), [...BASES.simple.args, '--gap-key', 'my_gap'], {
    kind: 'refuse',
    file,
    line: 1,
  });
  // …and present keys still match after NFC, "/" ≡ "_" and case folding.
  add(
    'keys: upper case, "/" for "_" and a decomposed accent',
    'simple',
    renamed('Écart/Moyen', 'ТОЧНОСТЬ'),
    [...BASES.simple.args, ...['--gap-key', 'e\u0301cart_moyen', '--val-key', 'точность']],
    { kind: 'reference' },
  );
  // One format per file: a flat first line, then verl lines (or the reverse), refused at the first line that switches.
  const verl = lines(BASES.verl.files[0][1]);
  const flatFirst = verl.map((l, i) =>
    i === 0 ? l.replace(/^\{"step":(\d+),"data":\{(.*)\}\}$/, '{"step":$1,$2}') : l,
  );
  add('formats: a flat first line, then verl lines', 'verl', unlines(flatFirst), BASES.verl.args, {
    kind: 'refuse',
    file: BASES.verl.files[0][0],
    line: 2,
  });
  const simpleRows = lines(simple);
  const switched = simpleRows.map((l, i) =>
    i === 10 ? l.replace(/^\{"step":(\d+),(.*)\}$/, '{"step":$1,"data":{$2}}') : l,
  );
  add('formats: a verl line among flat ones', 'simple', unlines(switched), BASES.simple.args, {
    kind: 'refuse',
    file,
    line: 11,
  });
  // A NaN gap after retirement is a placeholder: after the replay's own (verl retires at 35), and after the
  // logged run's (the lab's log marks its skipped teacher forwards from step 36).
  const nanAfter = verl.map((l) =>
    /^\{"step":(3[6-9]|[45]\d),/.test(l) ? l.replace(/("skillsd\/teacher_student_gap_mean":)-?[\d.e-]+/, '$1NaN') : l,
  );
  add('placeholders: NaN gaps after the replay retired', 'verl', unlines(nanAfter), BASES.verl.args, {
    kind: 'reference',
  });
  const lab = lines(BASES.lab.files[0][1]).map((l) =>
    /"retire_opd\/teacher_forward_skipped":[1-9]/.test(l)
      ? l.replace(/^\{/, '{"opd/teacher_student_gap_mean":NaN,')
      : l,
  );
  add('placeholders: NaN gaps where the logged run had retired', 'lab', unlines(lab), BASES.lab.args, {
    kind: 'reference',
  });
  add(
    'arguments: --window 9007199254740993',
    'simple',
    simple,
    [...BASES.simple.args, '--window', '9007199254740993'],
    {
      kind: 'refuse',
      file: '--window',
    },
  );
  return cases;
}

/** Every case for a seed: harmless variations first, then damaged inputs of each format. */
export function replayFuzzCases(seed: number, perBreaker = 3): FuzzCase[] {
  const r = rngOf(seed);
  const cases = variations();
  for (const base of JSONL_BASES) {
    const [[file, text]] = BASES[base].files;
    for (const [label, breaker] of Object.entries(JSONL_BREAKERS)) {
      for (let k = 0; k < (label.includes('17 M') ? 1 : perBreaker); k++) {
        const made = breaker(lines(text), r, file);
        if (made === null) continue;
        cases.push({
          name: `${base}: ${label} #${k + 1}`,
          base,
          files: [[file, made[0]]],
          args: BASES[base].args,
          expect: made[1],
        });
      }
    }
  }
  for (const which of [0, 1] as const) {
    const [file, text] = BASES.tensorboard.files[which];
    for (const [label, breaker] of Object.entries(CSV_BREAKERS)) {
      for (let k = 0; k < perBreaker; k++) {
        const made = breaker(lines(text), r, file);
        if (made === null) continue;
        const files = BASES.tensorboard.files.map(([n, t]) => [n, n === file ? made[0] : t] as const);
        cases.push({
          name: `tensorboard ${which === 0 ? 'gap' : 'val'}: ${label} #${k + 1}`,
          base: 'tensorboard',
          files,
          args: BASES.tensorboard.args,
          expect: made[1],
        });
      }
    }
  }
  const [[trlFile, trlText]] = BASES.trl.files;
  for (const [label, breaker] of Object.entries(TRL_BREAKERS)) {
    for (let k = 0; k < perBreaker; k++) {
      const [text, expect] = breaker(trlText, r, trlFile);
      cases.push({
        name: `trl: ${label} #${k + 1}`,
        base: 'trl',
        files: [[trlFile, text]],
        args: BASES.trl.args,
        expect,
      });
    }
  }
  cases.push(...wholeFiles(r));
  cases.push(...trustCases());
  return cases;
}
