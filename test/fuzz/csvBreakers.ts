// Ways to break one CSV of a TensorBoard export pair (or any CSV with a step column) for the replay fuzzing
// (replayCases.ts): each takes the rows and returns the damaged text and what must happen.
import { type Breaker, unlines } from './replayFuzzBases';

export const CSV_BREAKERS: Record<string, Breaker> = {
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
