// A seeded, bounded generator of bad or odd inputs for `npm run replay`, built from the shipped fixtures: harmless
// variations of a valid log (which must replay to the fixture's own trigger step) and damaged or hostile ones (which
// must be refused with one line naming the file, and the line where one is given here). Deterministic for a seed.
import { CSV_BREAKERS } from './csvBreakers';
import { JSONL_BREAKERS } from './jsonlBreakers';
import {
  BASES,
  type BaseName,
  type Expectation,
  type FuzzCase,
  JSONL_BASES,
  lines,
  type Rng,
  rngOf,
  unlines,
} from './replayFuzzBases';
import { TRL_BREAKERS } from './trlBreakers';

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

/** Whole-file oddities, the same for every format. */
function wholeFiles(r: Rng): FuzzCase[] {
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
