// Reading one log file as its text arrives in chunks: drop a UTF-8 byte-order mark, refuse binary files, detect the
// format from the file's head, then hand the chunks to that format's parser. Every format is parsed as it streams:
// JSON lines line by line, a CSV row by row, a trainer_state.json entry by entry, so memory holds a chunk and a
// partial record, whatever the file's size.
import { type LogFormat, type RecordSink, ReplayInputError } from './logRecords';
import { JsonLinesParser, verlObject } from './parseJsonLines';
import { CsvParser } from './parseCsv';
import { TrainerStateParser } from './parseTrainerState';
import { parsePythonJson } from './pythonJson';

/** How much of a file's start decides its format (more only while the first line is not complete). */
const HEAD_CHARS = 64 * 1024;
/** The largest head kept while waiting for the end of the first line. */
const MAX_HEAD_CHARS = 1024 * 1024;

/** The format a file's head shows: trainer_state.json, verl file logger, flat JSON lines, else CSV. */
export function detectFormatOfHead(head: string, complete: boolean): LogFormat {
  const text = head.trimStart();
  if (!text.startsWith('{') && !text.startsWith('[')) return 'csv';
  if (complete) {
    try {
      const whole = parsePythonJson(text);
      if (typeof whole === 'object' && whole !== null && 'log_history' in whole) return 'trl';
    } catch {
      // several JSON objects (JSON lines), or broken: judged below
    }
  }
  const ends = [text.indexOf('\n'), text.indexOf('\r')].filter((i) => i >= 0);
  const firstLine = ends.length > 0 ? text.slice(0, Math.min(...ends)) : complete ? text : undefined;
  if (firstLine !== undefined) {
    try {
      const first = parsePythonJson(firstLine);
      if (typeof first === 'object' && first !== null && 'log_history' in first) return 'trl';
      return verlObject(firstLine) ? 'verl' : 'jsonl';
    } catch {
      // a first line that is not a whole JSON value: a pretty-printed document, or a broken line
    }
  }
  return /"log_history"\s*:/.test(text) ? 'trl' : 'jsonl';
}

interface Parser {
  push(chunk: string): void;
  end(): void;
}

/** One file being read: push its text chunks in order, then end(). Rows go to the sink as they are parsed. */
export class LogReader {
  private head = '';
  private started = false;
  private parser: Parser | undefined;
  private sawText = false;
  /** Offset in the head of its first non-blank character (-1: none yet), and whether that line has ended. */
  private textStart = -1;
  private firstLineDone = false;
  /** The format used: forced, or detected once the head is in. */
  format: LogFormat | undefined;

  constructor(
    readonly file: string,
    private readonly sink: RecordSink,
    forced?: LogFormat,
  ) {
    this.format = forced;
  }

  push(chunk: string): void {
    if (!this.started) {
      if (chunk === '') return;
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    if (!this.sawText && /\S/.test(chunk)) this.sawText = true;
    if (this.parser !== undefined) {
      this.parser.push(chunk);
      return;
    }
    // Only the new chunk is scanned (linear in the head, whatever the chunking).
    const before = this.head.length;
    this.head += chunk;
    if (this.textStart < 0) {
      const at = chunk.search(/\S/);
      if (at >= 0) this.textStart = before + at;
    }
    if (this.textStart >= 0 && !this.firstLineDone) {
      const from = Math.max(this.textStart, before);
      this.firstLineDone = this.head.indexOf('\n', from) >= 0 || this.head.indexOf('\r', from) >= 0;
    }
    const enough = this.head.length >= HEAD_CHARS && this.firstLineDone;
    if (enough || this.head.length >= MAX_HEAD_CHARS) this.startParser(false);
  }

  end(): void {
    if (this.parser === undefined) {
      if (!this.sawText) throw new ReplayInputError(this.file, 1, 'empty file');
      this.startParser(true);
    }
    this.parser?.end();
  }

  private startParser(complete: boolean): void {
    const head = this.head;
    this.head = '';
    checkText(this.file, head);
    const format = this.format ?? detectFormatOfHead(head, complete);
    this.format = format;
    switch (format) {
      case 'jsonl':
      case 'verl':
        this.parser = new JsonLinesParser(this.file, format, this.sink);
        break;
      case 'csv':
        this.parser = new CsvParser(this.file, this.sink);
        break;
      case 'trl':
        this.parser = new TrainerStateParser(this.file, this.sink);
        break;
    }
    this.parser.push(head);
  }
}

/** Refuse what is not a text log, judged on its head: NUL bytes (binary, or UTF-16 text). */
function checkText(file: string, head: string): void {
  const nul = head.indexOf('\u0000');
  if (nul < 0) return;
  // UTF-16: every other byte NUL (ASCII text), after a byte-order mark that UTF-8 decoding turned into U+FFFD U+FFFD.
  const utf16 = /^(\ufffd\ufffd)?([^\u0000]\u0000){4}|^(\ufffd\ufffd)?(\u0000[^\u0000]){4}/.test(head);
  throw new ReplayInputError(
    file,
    0,
    utf16
      ? 'looks like UTF-16 text: save the log as UTF-8'
      : 'a binary file (it holds NUL bytes), not a text log (JSON lines, CSV or trainer_state.json)',
  );
}
