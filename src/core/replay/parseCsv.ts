// CSV logs (parsed with papaparse): a header row, a step column and one column per metric. Understood layouts:
//   - plain:        step,gap,val            (any metric names; empty cells mean "not logged at this step")
//   - TensorBoard:  Wall time,Step,Value    (one metric per file; the metric is named after the file, so
//                   run-ppo-tag-val_success_rate.csv holds "val_success_rate" — keys match with / ≡ _, see metricKey.ts)
//   - W&B:          Step,"run - val/success_rate","run - val/success_rate__MIN",…   (__MIN/__MAX dropped)
// Several files are joined on the step by the caller. Line numbers are the file's own lines, also after quoted cells
// that span several lines (papaparse's cursor gives where each row starts). Read incrementally (CsvParser): memory
// holds a chunk and a partial row, so a 200 MB W&B export streams like a JSON-lines log.
import Papa from 'papaparse';
import {
  checkStep,
  MAX_METRICS_PER_ROW,
  type RecordSink,
  ReplayInputError,
  StepOrder,
  tooManyMetrics,
} from './logRecords';
import { quoteInput } from './quoteInput';

const STEP_COLUMN = /^(step|_step|global_step)$/i;
// Unambiguous (no two ways to split a run of digits), so a huge cell cannot make the match take quadratic time.
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/** Headers longer than this are taken literally (no W&B "run - metric" split): bounded regex work. */
const MAX_PATTERN_HEADER = 1000;

/** A cell as a number where it is one (nan/inf spelled as Python, pandas or TensorBoard write them). */
function parseCell(cell: string): unknown {
  const text = cell.trim();
  if (text === '') return undefined;
  if (NUMBER.test(text)) return Number(text);
  const lower = text.toLowerCase();
  if (lower === 'nan') return Number.NaN;
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity') return Number.POSITIVE_INFINITY;
  if (lower === '-inf' || lower === '-infinity') return Number.NEGATIVE_INFINITY;
  return text;
}

/** The metric a TensorBoard single-scalar export holds, from its file name. */
function tensorboardTag(file: string): string {
  const base = (file.split(/[\\/]/).pop() ?? file).replace(/\.csv$/i, '');
  const tag = /(?:^|[-_])tag-(.+)$/.exec(base);
  return tag?.[1] ?? base;
}

/** The metric key of a column header, or null for columns that hold no metric. */
function metricKey(file: string, header: string, singleMetric: boolean): string | null {
  if (STEP_COLUMN.test(header) || /^wall[ _]?time$/i.test(header)) return null;
  if (singleMetric && /^value$/i.test(header)) return tensorboardTag(file);
  if (/__(MIN|MAX)$/.test(header)) return null;
  const wandb = header.length <= MAX_PATTERN_HEADER ? /^.+? - (.+)$/.exec(header) : null;
  return wandb?.[1] ?? header;
}

/** Counts line breaks (\n, \r\n, lone \r) as the text is walked forward, to turn offsets into 1-based lines. */
class LineCounter {
  private offset = 0;
  constructor(
    private readonly text: string,
    private line: number,
  ) {}
  /** Line of `offset` (offsets must not go back). */
  at(offset: number): number {
    const text = this.text;
    for (let i = this.offset; i < offset && i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) this.line += 1;
    }
    this.offset = Math.max(this.offset, offset);
    return this.line;
  }
}

const isBlank = (row: readonly string[]) => row.every((cell) => cell.trim() === '');

/** The longest run of text without a row end outside quotes (a row is a few kB; more is an unterminated quote). */
const MAX_ROW_CHARS = 16 * 1024 * 1024;

/**
 * An incremental CSV reader: push text chunks, then end(); each data row goes to the sink as soon as its row end
 * has arrived. The text is cut after the last line break outside quotes (a "…" cell may span lines; "" inside one
 * keeps the quote count even) and each cut piece is parsed by papaparse, so memory holds one chunk and one partial
 * row, whatever the file's size.
 */
export class CsvParser {
  private readonly order: StepOrder;
  /** Text not parsed yet: a partial row (or rows inside an open quote). */
  private rest = '';
  /** How far `rest` has been scanned, and whether that point is inside quotes. */
  private scanned = 0;
  private quoted = false;
  /** The file's line break, from its first row end outside quotes (papaparse is told it, for every piece). */
  private newline: '\n' | '\r\n' | '\r' | undefined;
  /** 1-based line at which `rest` starts. */
  private line = 1;
  private header: { line: number; fields: string[]; keys: (string | null)[]; stepColumn: number } | undefined;
  private rows = 0;

  constructor(
    private readonly file: string,
    private readonly sink: RecordSink,
  ) {
    this.order = new StepOrder(file);
  }

  push(chunk: string): void {
    this.rest += chunk;
    const text = this.rest;
    let cut = -1;
    let i = this.scanned;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) this.quoted = !this.quoted;
      else if (!this.quoted && (c === 10 || c === 13)) {
        if (c === 13 && i === text.length - 1) break; // maybe half of \r\n: wait for the next chunk
        const crlf = c === 13 && text.charCodeAt(i + 1) === 10;
        this.newline ??= crlf ? '\r\n' : c === 13 ? '\r' : '\n';
        if (crlf) i += 1;
        cut = i + 1;
      }
    }
    this.scanned = i;
    if (cut > 0) {
      this.parsePiece(text.slice(0, cut));
      this.rest = text.slice(cut);
      this.scanned -= cut;
    } else if (this.rest.length > MAX_ROW_CHARS) {
      throw new ReplayInputError(
        this.file,
        this.line,
        `a row longer than ${MAX_ROW_CHARS / (1024 * 1024)} MB (an unterminated quote?)`,
      );
    }
  }

  end(): void {
    if (this.rest !== '') this.parsePiece(this.rest);
    this.rest = '';
    if (this.header === undefined) throw new ReplayInputError(this.file, 1, 'empty file');
    if (this.rows === 0) throw new ReplayInputError(this.file, this.header.line, 'no data rows after the header');
  }

  /** Parse whole rows (the text ends at a row end, or is the file's last text). */
  private parsePiece(piece: string): void {
    const lines = new LineCounter(piece, this.line);
    let rowStart = 0;
    Papa.parse<string[]>(piece, {
      skipEmptyLines: false,
      ...(this.newline === undefined ? {} : { newline: this.newline }),
      step: (results) => {
        const line = lines.at(rowStart);
        rowStart = results.meta.cursor;
        this.onRow(results.data, results.errors, line);
      },
    });
    this.line = lines.at(piece.length);
  }

  private onRow(row: string[], errors: Papa.ParseError[], line: number): void {
    const file = this.file;
    const quoteError = errors.find((e) => e.type === 'Quotes');
    if (quoteError !== undefined) throw new ReplayInputError(file, line, `CSV: ${quoteError.message}`);
    if (isBlank(row)) return;
    if (this.header === undefined) {
      this.header = readHeader(file, line, row);
      return;
    }
    const { fields, keys, stepColumn } = this.header;
    if (row.length !== fields.length) {
      throw new ReplayInputError(file, line, `expected ${fields.length} fields as in the header, got ${row.length}`);
    }
    const values: Record<string, unknown> = {};
    keys.forEach((key, column) => {
      const value = key === null ? undefined : parseCell(row[column] ?? '');
      if (key !== null && value !== undefined) {
        Object.defineProperty(values, key, { value, enumerable: true, writable: true, configurable: true });
      }
    });
    const step = checkStep(file, line, row[stepColumn]);
    this.order.check(line, step);
    this.rows += 1;
    this.sink({ line, step, values });
  }
}

/** Parse a whole CSV text, handing each data row to the sink (in file order). */
export function readCsv(file: string, text: string, sink: RecordSink): void {
  const parser = new CsvParser(file, sink);
  parser.push(text);
  parser.end();
}

function readHeader(file: string, line: number, row: string[]) {
  // a step column and at most MAX_METRICS_PER_ROW columns besides it
  if (row.length - 1 > MAX_METRICS_PER_ROW) throw tooManyMetrics(file, line, row.length - 1);
  const fields = row.map((h) => h.trim());
  const stepColumns = fields.filter((f) => STEP_COLUMN.test(f));
  if (stepColumns.length === 0) {
    const shown = fields.slice(0, 8).map((f) => quoteInput(f, 30));
    throw new ReplayInputError(
      file,
      line,
      `no step column (expected one of step, Step, _step, global_step; the header has ${fields.length} column(s): ` +
        `${shown.join(',')}${fields.length > 8 ? ',…' : ''})`,
    );
  }
  if (stepColumns.length > 1) {
    throw new ReplayInputError(
      file,
      line,
      `${stepColumns.length} step columns (${stepColumns.map((f) => quoteInput(f)).join(' and ')}): keep one`,
    );
  }
  const stepColumn = fields.findIndex((f) => STEP_COLUMN.test(f));
  const singleMetric = fields.some((f) => /^value$/i.test(f));
  const keys = fields.map((f) => metricKey(file, f, singleMetric));
  // the first column of each key, in one pass (an indexOf per column was quadratic: minutes for 200,000 columns)
  const firstOf = new Map<string, number>();
  keys.forEach((key, column) => {
    if (key === null) return;
    const first = firstOf.get(key) ?? firstOf.set(key, column).get(key)!;
    if (first !== column) {
      throw new ReplayInputError(
        file,
        line,
        `columns ${quoteInput(fields[first])} and ${quoteInput(fields[column])} both hold ${quoteInput(key)} ` +
          '(export one run per file)',
      );
    }
  });
  return { line, fields, keys, stepColumn };
}
