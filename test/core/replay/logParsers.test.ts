import { describe, expect, it } from 'vitest';
import { CsvParser, readCsv } from '../../../src/core/replay/parseCsv';
import { JsonLinesParser } from '../../../src/core/replay/parseJsonLines';
import { readTrainerState, TrainerStateParser } from '../../../src/core/replay/parseTrainerState';
import { checkStep, type RecordSink } from '../../../src/core/replay/logRecords';
import { MAX_JSON_DEPTH, parsePythonJson, syntaxErrorOffset } from '../../../src/core/replay/pythonJson';

/** The rows a streaming parser hands its sink, collected; metrics as a Map without the row's non-metric key. */
function collect(read: (sink: RecordSink) => void): { line: number; step: number; values: Map<string, unknown> }[] {
  const rows: { line: number; step: number; values: Map<string, unknown> }[] = [];
  read(({ line, step, values, skip }) =>
    rows.push({ line, step, values: new Map(Object.entries(values).filter(([key]) => key !== skip)) }),
  );
  return rows;
}
const parseCsv = (file: string, text: string) => collect((sink) => readCsv(file, text, sink));
const parseTrainerState = (file: string, text: string) => collect((sink) => readTrainerState(file, text, sink));
const parseJsonLines = (file: string, text: string, format: 'jsonl' | 'verl') =>
  collect((sink) => {
    const parser = new JsonLinesParser(file, format, sink);
    parser.push(text);
    parser.end();
  });

describe('parsePythonJson', () => {
  it('reads NaN, Infinity and -Infinity tokens but leaves strings alone', () => {
    const value = parsePythonJson('{"a": NaN, "b": -Infinity, "c": [Infinity], "d": "NaN \\" Infinity"}') as Record<
      string,
      unknown
    >;
    expect(value.a).toBeNaN();
    expect(value.b).toBe(Number.NEGATIVE_INFINITY);
    expect(value.c).toEqual([Number.POSITIVE_INFINITY]);
    expect(value.d).toBe('NaN " Infinity');
  });
  it('reports the line of a syntax error', () => {
    expect(() => parsePythonJson('{\n"a": 1,\n"b": }')).toThrow(/not valid JSON/);
    try {
      parsePythonJson('{\n"a": 1,\n"b": }');
    } catch (e) {
      expect((e as { line: number }).line).toBe(3);
    }
  });
});

describe('parsePythonJson on hostile input', () => {
  it('refuses nesting deeper than MAX_JSON_DEPTH with the line, never exhausting the call stack', () => {
    const deep = (n: number) => `{"a":\n${'['.repeat(n)}${']'.repeat(n)}}`;
    expect(() => parsePythonJson(deep(MAX_JSON_DEPTH - 1))).not.toThrow();
    for (const n of [MAX_JSON_DEPTH, 1_000_000]) {
      expect(() => parsePythonJson(deep(n))).toThrow(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
      try {
        parsePythonJson(deep(n));
      } catch (e) {
        expect((e as { line: number }).line).toBe(2);
      }
    }
  });
  it('locates a syntax error without recursion, even a million brackets deep', () => {
    const n = 1_000_000;
    expect(syntaxErrorOffset(`${'['.repeat(n)}1,]${']'.repeat(n - 1)}`)).toBe(n + 2);
    const valid = '{"a": [1, NaN, -Infinity, {"b": "x"}]}';
    expect(syntaxErrorOffset(valid)).toBe(valid.length); // valid: its end
    expect(syntaxErrorOffset('{"a" 1}')).toBe(5);
  });
  it('escapes control bytes of the input it quotes', () => {
    expect(() => parsePythonJson('{"a": \u0007\u001b[2J}')).toThrow('not valid JSON: unexpected "\\x07\\x1b[2J}"');
  });
  it('does not let a "__proto__" key set the prototype', () => {
    const value = parsePythonJson('{"__proto__": {"polluted": NaN}, "x": 1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'x']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('checkStep', () => {
  it('treats a blank step as missing, never as step 0', () => {
    for (const blank of ['', ' ', '\t', undefined, null])
      expect(() => checkStep('f', 3, blank)).toThrow('f:3: missing step');
  });
  it('accepts integers and integer-valued decimals; refuses the rest, naming file:line', () => {
    expect(checkStep('f', 1, 7)).toBe(7);
    expect(checkStep('f', 1, ' 12.0 ')).toBe(12);
    expect(checkStep('f', 1, '1e3')).toBe(1000);
    expect(Object.is(checkStep('f', 1, -0), 0)).toBe(true);
    for (const bad of [-1, 1.5, '0x10', '1,5', 'Infinity', true, 2 ** 53, '-2', {}]) {
      expect(() => checkStep('f', 4, bad)).toThrow(/^f:4: step must be a non-negative integer, got /);
    }
  });
});

describe('parseJsonLines', () => {
  it('reads verl file-logger lines as step + data', () => {
    const records = parseJsonLines('v', '{"step": 3, "data": {"x": 1, "y": NaN}}\n', 'verl');
    expect(records[0]?.step).toBe(3);
    expect(records[0]?.values.get('x')).toBe(1);
    expect(records[0]?.values.get('y')).toBeNaN();
  });
  it('refuses a verl line without data', () => {
    expect(() => parseJsonLines('v', '{"step": 3, "x": 1}', 'verl')).toThrow(/v:1: expected a verl file-logger line/);
  });
});

describe('parseCsv', () => {
  it('reads a plain CSV with empty cells as missing values', () => {
    const records = parseCsv('a.csv', 'step,gap,val\n1,-0.5,\n2,-0.25,0.5\n');
    expect(records.map((r) => [r.step, r.values.get('gap'), r.values.get('val')])).toEqual([
      [1, -0.5, undefined],
      [2, -0.25, 0.5],
    ]);
    expect(records[1]?.line).toBe(3);
  });
  it('names a TensorBoard single-scalar export after its tag (or, without a tag, after the file)', () => {
    const metrics = (file: string) => [...(parseCsv(file, 'Wall time,Step,Value\n1.5,10,0.25\n')[0]?.values ?? [])];
    expect(metrics('logs/run-a-tag-val_success_rate.csv')).toEqual([['val_success_rate', 0.25]]);
    expect(metrics('/x/run-grpo_opd-tag-val_success_rate.csv')).toEqual([['val_success_rate', 0.25]]);
    expect(metrics('C:\\logs\\gap.CSV')).toEqual([['gap', 0.25]]);
  });
  it('reads a W&B export, dropping its __MIN/__MAX columns', () => {
    const text =
      'Step,"run-7 - val/success_rate","run-7 - val/success_rate__MIN","run-7 - val/success_rate__MAX"\n5,0.5,0.4,0.6\n';
    expect([...(parseCsv('w.csv', text)[0]?.values ?? [])]).toEqual([['val/success_rate', 0.5]]);
  });
  it('refuses a W&B export holding the same metric of two runs', () => {
    expect(() => parseCsv('w.csv', 'Step,a - val/success_rate,b - val/success_rate\n1,0.5,0.6\n')).toThrow(
      'w.csv:1: columns "a - val/success_rate" and "b - val/success_rate" both hold "val/success_rate"',
    );
  });
  it('names the first and the repeated column of a wide header (one pass over 10,000 columns)', () => {
    const columns = Array.from({ length: 9_999 }, (_, i) => `m${i}`);
    const header = ['Step', ...columns, 'x - m7'].join(',');
    expect(() => parseCsv('w.csv', `${header}\n${['1', ...columns.map(() => '0'), '0'].join(',')}\n`)).toThrow(
      'w.csv:1: columns "m7" and "x - m7" both hold "m7"',
    );
  });
  it('refuses a header of more than 10,000 metric columns at its line, before reading any row', () => {
    const header = ['Step', ...Array.from({ length: 10_001 }, (_, i) => `m${i}`)].join(',');
    expect(() => parseCsv('w.csv', `\n${header}\n1${',0'.repeat(10_001)}\n`)).toThrow(
      "w.csv:2: 10001 metrics on one row, at most 10000 (not a training log's row: keep the metrics the gate reads)",
    );
  });
  it('parses nan/inf cells as numbers and keeps other text', () => {
    const cells = ['nan', '-inf', 'Infinity', ' 1e-3 ', 'abc', ''];
    const text = `step,x\n${cells.map((c, i) => `${i},${c}`).join('\n')}\n`;
    const values = parseCsv('a.csv', text).map((r) => r.values.get('x'));
    expect(values).toEqual([Number.NaN, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, 0.001, 'abc', undefined]);
  });
  it('reports a missing step column, a short row and a header-only file with their lines', () => {
    expect(() => parseCsv('a.csv', 'time,gap\n1,2\n')).toThrow(/a.csv:1: no step column/);
    expect(() => parseCsv('a.csv', 'step,gap\n1,2\n2\n')).toThrow('a.csv:3: expected 2 fields as in the header, got 1');
    expect(() => parseCsv('a.csv', 'step,gap\n')).toThrow('a.csv:1: no data rows after the header');
    expect(() => parseCsv('a.csv', 'step,gap\nx,1\n')).toThrow('a.csv:2: step must be a non-negative integer, got "x"');
  });
});

describe('parseCsv on odd input', () => {
  it('refuses two step columns, naming both', () => {
    expect(() => parseCsv('a.csv', 'global_step,step,gap\n1,1,-1\n')).toThrow(
      'a.csv:1: 2 step columns ("global_step" and "step"): keep one',
    );
  });
  it('gives real line numbers after quoted cells that span lines (\n, \r\n, lone \r)', () => {
    for (const nl of ['\n', '\r\n', '\r']) {
      const text = ['step,gap,note', '1,-1,"two', 'lines"', '2,-1,"three', '', 'lines"', 'x,-1,ok'].join(nl);
      expect(() => parseCsv('a.csv', text)).toThrow('a.csv:7: step must be a non-negative integer, got "x"');
      expect(parseCsv('a.csv', text.replace('x,', '3,')).map((r) => r.line)).toEqual([2, 4, 7]);
    }
  });
  it('reports an unterminated quote at the line its row starts', () => {
    expect(() => parseCsv('a.csv', 'step,gap\n1,-1\n2,"-1\n3,-1\n')).toThrow('a.csv:3: CSV: Quoted field unterminated');
  });
  it('quotes a binary header without echoing its control bytes', () => {
    const message = (() => {
      try {
        parseCsv('a.csv', `\u001b[31m${'\u0001'.repeat(500)}\n1\n`);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    expect(message).toMatch(/^a\.csv:1: no step column .*"\\x1b\[31m(\\x01)+…"\)$/);
    expect(message.length).toBeLessThan(200);
  });
});

describe('parseTrainerState', () => {
  const text = `{
  "global_step": 2,
  "log_history": [
    {
      "loss": 0.5,
      "note": "a } in a string",
      "step": 1
    },
    {"eval_success_rate": 0.25, "step": 1},
    {
      "loss": NaN,
      "step": 2
    }
  ]
}`;
  it('makes one record per entry, with the line it starts on (a "}" inside a string does not count)', () => {
    const records = parseTrainerState('s.json', text);
    expect(records.map((r) => [r.step, r.line])).toEqual([
      [1, 4],
      [1, 9],
      [2, 10],
    ]);
    expect(records[2]?.values.get('loss')).toBeNaN();
  });
  it('reports an entry without a step at its own line, and a file that is not a trainer state', () => {
    expect(() => parseTrainerState('s.json', text.replace('"step": 2', '"epoch": 2'))).toThrow(
      's.json:10: missing step',
    );
    expect(() => parseTrainerState('s.json', '{"a": 1}')).toThrow('s.json:1: not a trainer_state.json');
    expect(() => parseTrainerState('s.json', '{\n"log_history": [\n{"step": 1,}\n]}')).toThrow(
      /s.json:3: not valid JSON/,
    );
  });
});

/** Rows of an incremental parser fed `text` in pieces of `size` characters. */
function pieces(make: (sink: RecordSink) => { push(t: string): void; end(): void }, text: string, size: number) {
  return collect((sink) => {
    const parser = make(sink);
    for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size));
    parser.end();
  });
}

describe('the incremental CSV and trainer_state.json parsers', () => {
  const csv = 'Step,"a ""b"" c",note\r\n1,0.5,"x\r\ny"\r\n2,0.25,plain\r\n\r\n3,0.125,"z,\nw"\r\n';
  it('read a CSV the same in any pieces: quotes spanning lines and pieces, \\r\\n cut in two', () => {
    const whole = parseCsv('c.csv', csv);
    expect(whole.map((r) => [r.step, r.line, r.values.get('a "b" c')])).toEqual([
      [1, 2, 0.5],
      [2, 4, 0.25],
      [3, 6, 0.125],
    ]);
    for (const size of [1, 2, 3, 5, 8]) expect(pieces((k) => new CsvParser('c.csv', k), csv, size)).toEqual(whole);
  });

  it('report a CSV error at the same line in any pieces', () => {
    const bad = 'step,gap\n1,-1\n2,-1\n1,-1\n';
    for (const size of [1, 4, bad.length]) {
      expect(() => pieces((k) => new CsvParser('c.csv', k), bad, size)).toThrow('c.csv:4: step 1 is out of order');
    }
    const open = 'step,gap\n1,-1\n2,"-1\n3,-1\n';
    expect(() => pieces((k) => new CsvParser('c.csv', k), open, 3)).toThrow(/^c\.csv:3: CSV: /);
  });

  const state =
    '{"best": NaN,\n "log_history": [\n  {"step": 1, "note": "], {"},\n  {"step": 2, "x": [1, {"y": 2}]}\n ],\n "z": 1}\n';
  it('read a trainer_state.json the same in any pieces, strings holding brackets and commas', () => {
    const whole = parseTrainerState('s.json', state);
    expect(whole.map((r) => [r.step, r.line])).toEqual([
      [1, 3],
      [2, 4],
    ]);
    for (const size of [1, 2, 7]) {
      expect(pieces((k) => new TrainerStateParser('s.json', k), state, size)).toEqual(whole);
    }
  });

  it('refuse a trainer_state.json that is not JSON as a whole, naming the line after the entries too', () => {
    const cases: [string, string][] = [
      [state.replace('"z": 1', '"z": }'), 's.json:6: not valid JSON'],
      [state.replace('"z": 1}', '"z": 1'), 's.json:7: not valid JSON: unexpected end of input'],
      [state.replace('\n ],', '\n'), 's.json:7: not valid JSON: unexpected end of input'],
      [state.replace('{"step": 2', ', {"step": 2'), 's.json:4: not valid JSON: unexpected ","'],
      [state.replace('"z": 1', '"log_history": [{"step": 9}]'), 's.json:1: "log_history" appears twice: keep one'],
      ['[{"log_history": [{"step": 1}]}]', 's.json:1: not a trainer_state.json'],
      ['{"log_history": {"step": 1}}', 's.json:1: not a trainer_state.json'],
      ['{"a": {"log_history": [{"step": 1}]}}', 's.json:1: not a trainer_state.json'],
    ];
    for (const [text, message] of cases) {
      for (const size of [1, text.length]) {
        expect(() => pieces((k) => new TrainerStateParser('s.json', k), text, size), text).toThrow(message);
      }
    }
  });
});
