// Ways to break a JSON-lines log (the verl file logger's, the flat {"step","gap","val"} one, the lab's metrics.jsonl)
// for the replay fuzzing (replayCases.ts): each takes the rows and returns the damaged text and what must happen.
import { type Breaker, lineOfStep, unlines } from './replayFuzzBases';

export const JSONL_BREAKERS: Record<string, Breaker> = {
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
