import { describe, expect, it } from 'vitest';
import { detectFormatOfHead, LogReader } from '../../../src/core/replay/logReader';
import type { LogFormat, RawRecord } from '../../../src/core/replay/logRecords';

/** Feed `text` in chunks of `size` characters; returns the rows (step, line, values) and the format used. */
function read(text: string, size = text.length || 1, forced?: LogFormat) {
  const rows: RawRecord[] = [];
  const reader = new LogReader('f', (r) => rows.push(r), forced);
  for (let i = 0; i < text.length; i += size) reader.push(text.slice(i, i + size));
  reader.end();
  const metrics = (r: RawRecord) => Object.fromEntries(Object.entries(r.values).filter(([k]) => k !== r.skip));
  return { format: reader.format, rows: rows.map((r) => [r.step, r.line, metrics(r)]) };
}

const errorOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
};

const verl = '{"step": 1, "data": {"g": -0.5, "x": NaN}}\n{"step": 2, "data": {"g": -0.25}}\n';
const trl = '{\n  "log_history": [\n    {"loss": 1, "step": 1},\n    {"eval_x": 0.5, "step": 1}\n  ]\n}\n';
const csv = 'Step,Value\n1,-0.5\n2,-0.25\n';

describe('LogReader', () => {
  it('accepts a UTF-8 byte-order mark in every format and reads the same rows as without it', () => {
    for (const text of [verl, trl, csv, '{"step":1,"gap":-1}\n']) {
      expect(read(`\uFEFF${text}`)).toEqual(read(text));
      expect(read(`\uFEFF${text}`, 1)).toEqual(read(text));
    }
    expect(read(`\uFEFF${csv}`).rows[0]).toEqual([1, 2, { f: -0.5 }]);
  });

  it('reads the same rows whatever the chunk size (1 character, 7, whole)', () => {
    for (const text of [verl, trl, csv, verl.replace(/\n/g, '\r\n')]) {
      const whole = read(text);
      expect(read(text, 1)).toEqual(whole);
      expect(read(text, 7)).toEqual(whole);
    }
    expect(read(verl).format).toBe('verl');
    expect(read(trl).format).toBe('trl');
    expect(read(csv).format).toBe('csv');
  });

  it('streams every format: rows reach the sink as the chunks arrive, before the end (bounded memory)', () => {
    const rowsOf = (n: number, row: (k: number) => string) => Array.from({ length: n }, (_, i) => row(i + 1)).join('');
    const texts = {
      verl: rowsOf(5000, (k) => `{"step": ${k}, "data": {"g": -0.5}}\n`),
      csv: `Step,"run - g","run - g__MIN"\n${rowsOf(5000, (k) => `${k},-0.5,-0.6\n`)}`,
      trl: `{"log_history": [\n${rowsOf(5000, (k) => `${k > 1 ? ',\n' : ''}  {"loss": 1, "step": ${k}}`)}\n]}\n`,
    };
    for (const [format, text] of Object.entries(texts)) {
      const rows: RawRecord[] = [];
      const reader = new LogReader('f', (r) => rows.push(r));
      for (let i = 0; i < text.length; i += 4096) reader.push(text.slice(i, i + 4096));
      // all but the last few rows are parsed before end(): the file is never held whole
      expect(rows.length, format).toBeGreaterThan(4900);
      reader.end();
      expect([reader.format, rows.length]).toEqual([format, 5000]);
    }
  });

  it('refuses an empty, blank or BOM-only file', () => {
    expect(errorOf(() => read(''))).toBe('f:1: empty file');
    expect(errorOf(() => read(' \r\n\t'))).toBe('f:1: empty file');
    expect(errorOf(() => read('\uFEFF\n', 1))).toBe('f:1: empty file');
  });

  it('refuses binary and UTF-16 files without echoing them', () => {
    expect(errorOf(() => read('\u001f\ufffd\u0008\u0000\u0000\u0000binary'))).toBe(
      'f: a binary file (it holds NUL bytes), not a text log (JSON lines, CSV or trainer_state.json)',
    );
    const utf16 = `\ufffd\ufffd${[...'step,gap\n'].map((c) => `${c}\u0000`).join('')}`;
    expect(errorOf(() => read(utf16))).toBe('f: looks like UTF-16 text: save the log as UTF-8');
  });

  it('honours a forced format', () => {
    expect(errorOf(() => read(verl, 5, 'csv'))).toMatch(/^f:1: /);
    expect(read('{"step": 1, "data": {"g": 1}}\n', 3, 'jsonl').rows).toEqual([[1, 1, { data: { g: 1 } }]]);
  });
});

describe('detectFormatOfHead', () => {
  it('tells a pretty-printed or compact trainer_state.json, verl, flat JSON lines and CSV apart', () => {
    expect(detectFormatOfHead(trl, true)).toBe('trl');
    expect(detectFormatOfHead('{"log_history": [{"step": 1}]}', true)).toBe('trl');
    expect(detectFormatOfHead('{"best_metric": null,\n "log_history": [', false)).toBe('trl');
    expect(detectFormatOfHead(verl, true)).toBe('verl');
    expect(detectFormatOfHead('{"step": 1, "gap": -1}\n{"step": 2', false)).toBe('jsonl');
    expect(detectFormatOfHead('  \nstep,gap\n', true)).toBe('csv');
    // A broken first line without "log_history" is read as JSON lines, so the error names its line.
    expect(detectFormatOfHead('{"step": 1,\n', true)).toBe('jsonl');
  });
});
