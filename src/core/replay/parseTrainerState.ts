// TRL / Hugging Face Trainer's `trainer_state.json`: `{"log_history": [{"step": k, "loss": …}, {"step": k,
// "eval_…": …}, …], …}`. Training and evaluation entries of one step are separate objects; both become records.
// Read incrementally (TrainerStateParser): a scan that follows strings and brackets cuts the "log_history" array
// into its entries as the text arrives, and each entry is parsed alone (Python's NaN/Infinity allowed), so memory
// holds a chunk and one entry, whatever the file's size. The rest of the document (its other keys) is kept and
// parsed at the end with an empty "log_history" in place, so a file is accepted only if it is JSON as a whole.
import { checkStep, type RecordSink, ReplayInputError, StepOrder } from './logRecords';
import { JsonSyntaxError, parsePythonJson } from './pythonJson';

/** The largest log_history entry, and the largest rest of the document (an entry is a few hundred bytes). */
const MAX_ENTRY_CHARS = 16 * 1024 * 1024;
const MAX_SKELETON_CHARS = 16 * 1024 * 1024;
const KEY = 'log_history';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type Phase =
  /** before the log_history array: everything is kept in the skeleton */
  | 'prefix'
  /** after `"log_history"` at the top level: a `:` and a `[` must follow for the array to start */
  | 'key'
  | 'colon'
  /** inside the array, between entries (`depth` 0) or inside one */
  | 'history'
  /** after the array's `]` */
  | 'suffix';

export class TrainerStateParser {
  private readonly order: StepOrder;
  private phase: Phase = 'prefix';
  /** The document without the entries of log_history, in pieces. */
  private skeleton: string[] = [];
  private skeletonChars = 0;
  /** Lexical state of the scan. */
  private inString = false;
  private escaped = false;
  private depth = 0;
  /** Bracket depth inside the entry being read (the array's own level is 0). */
  private entryDepth = 0;
  private topIsObject: boolean | undefined;
  /** The string just read at the top level (only while it may be "log_history"), and whether it is complete. */
  private name = '';
  private nameOpen = false;
  /** 1-based line of the scan, and whether the last character was \r (for \r\n). */
  private line = 1;
  private afterCr = false;
  /** The entry being read: its text in pieces, its first line; entries seen; lines of the array's [ and ]. */
  private entry: string[] = [];
  private entryChars = 0;
  private entryLine = 0;
  private entries = 0;
  private openLine = 0;
  private closeLine = 0;

  constructor(
    private readonly file: string,
    private readonly sink: RecordSink,
  ) {
    this.order = new StepOrder(file);
  }

  push(chunk: string): void {
    let keepFrom = 0; // start of this chunk's text that belongs to the skeleton
    let entryFrom = 0; // start of this chunk's text that belongs to the entry being read
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const c = chunk.charCodeAt(i);
      if (c === 13 || (c === 10 && !this.afterCr)) this.line += 1;
      this.afterCr = c === 13;
      if (this.phase !== 'history') {
        this.scanOutside(c);
        if ((this.phase as Phase) === 'history') {
          // the array's "[" just passed: it ends the skeleton's prefix
          this.keep(chunk.slice(keepFrom, i + 1));
          keepFrom = i + 1;
        }
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92) this.escaped = true;
        else if (c === 34) this.inString = false;
        continue;
      }
      if (this.entryDepth === 0 && (c === 44 || c === 93)) {
        // "," or the array's "]": the entry (if any) ends here
        if (this.entryLine > 0) this.addEntryText(chunk.slice(entryFrom, i));
        this.endEntry(c === 44);
        if (c === 93) {
          this.phase = 'suffix';
          this.closeLine = this.line;
          keepFrom = i; // the "]" goes to the skeleton
        }
        continue;
      }
      if (this.entryLine === 0) {
        if (c === 32 || c === 9 || c === 10 || c === 13) continue;
        this.entryLine = this.line;
        entryFrom = i;
      }
      if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) this.entryDepth += 1;
      else if ((c === 125 || c === 93) && this.entryDepth > 0) this.entryDepth -= 1;
    }
    if (this.phase !== 'history') this.keep(chunk.slice(keepFrom));
    else if (this.entryLine > 0) this.addEntryText(chunk.slice(entryFrom));
  }

  end(): void {
    if (this.phase === 'history') {
      throw new ReplayInputError(this.file, this.line, 'not valid JSON: unexpected end of input');
    }
    const skeleton = this.skeleton.join('');
    let parsed: unknown;
    try {
      parsed = parsePythonJson(skeleton);
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      // lines after the array are shifted by the lines its entries took
      const shift = this.phase === 'suffix' ? this.closeLine - this.openLine : 0;
      const line = error.line > this.openLine && this.phase === 'suffix' ? error.line + shift : error.line;
      throw new ReplayInputError(this.file, line, error.message);
    }
    const history = isObject(parsed) ? parsed[KEY] : undefined;
    if (this.phase !== 'suffix' || !Array.isArray(history) || history.length > 0) {
      throw new ReplayInputError(
        this.file,
        1,
        this.phase === 'suffix'
          ? `"${KEY}" appears twice: keep one`
          : `not a trainer_state.json: expected an object with a "${KEY}" array`,
      );
    }
  }

  /** One character outside log_history's entries: strings, brackets, and the `"log_history": [` that opens it. */
  private scanOutside(c: number): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === 92) this.escaped = true;
      else if (c === 34) {
        this.inString = false;
        if (this.nameOpen) {
          this.nameOpen = false;
          if (this.name === KEY && this.phase === 'prefix') this.phase = 'key';
        }
      } else if (this.nameOpen) {
        this.name += String.fromCharCode(c);
        if (this.name.length > KEY.length) this.nameOpen = false;
      }
      return;
    }
    const blank = c === 32 || c === 9 || c === 10 || c === 13;
    if (this.phase === 'key') {
      if (blank) return;
      this.phase = c === 58 ? 'colon' : 'prefix';
      if (c === 58) return;
    } else if (this.phase === 'colon') {
      if (blank) return;
      if (c === 91) {
        this.phase = 'history';
        this.openLine = this.line;
        return;
      }
      this.phase = 'prefix';
    }
    if (c === 34) {
      this.inString = true;
      // a string directly inside the top-level object may be the key "log_history"
      this.nameOpen = this.phase === 'prefix' && this.depth === 1 && this.topIsObject === true;
      this.name = '';
    } else if (c === 123 || c === 91) {
      if (this.depth === 0 && this.topIsObject === undefined) this.topIsObject = c === 123;
      this.depth += 1;
    } else if (c === 125 || c === 93) this.depth -= 1;
  }

  private keep(text: string): void {
    if (text === '') return;
    this.skeletonChars += text.length;
    if (this.skeletonChars > MAX_SKELETON_CHARS) {
      throw new ReplayInputError(
        this.file,
        this.line,
        `more than ${MAX_SKELETON_CHARS / (1024 * 1024)} MB outside "${KEY}": not a trainer_state.json`,
      );
    }
    this.skeleton.push(text);
  }

  private addEntryText(text: string): void {
    this.entryChars += text.length;
    if (this.entryChars > MAX_ENTRY_CHARS) {
      throw new ReplayInputError(
        this.file,
        this.entryLine,
        `log_history[${this.entries}] is longer than ${MAX_ENTRY_CHARS / (1024 * 1024)} MB`,
      );
    }
    this.entry.push(text);
  }

  /** An entry's text is complete: parse it and hand it on. `comma`: a "," ended it (so one must have been there). */
  private endEntry(comma: boolean): void {
    const index = this.entries;
    if (this.entryLine === 0) {
      // "[,", ",," or ",]": no value between separators
      if (comma || index > 0) throw new ReplayInputError(this.file, this.line, 'not valid JSON: unexpected ","');
      return;
    }
    const text = this.entry.join('');
    const line = this.entryLine;
    this.entry = [];
    this.entryChars = 0;
    this.entryLine = 0;
    this.entries += 1;
    let parsed: unknown;
    try {
      parsed = parsePythonJson(text);
    } catch (error) {
      if (error instanceof JsonSyntaxError) throw new ReplayInputError(this.file, line + error.line - 1, error.message);
      throw error;
    }
    if (!isObject(parsed)) throw new ReplayInputError(this.file, line, `log_history[${index}] is not an object`);
    const step = checkStep(this.file, line, parsed.step);
    this.order.check(line, step);
    this.sink({ line, step, values: parsed, skip: 'step' });
  }
}

/** Parse a whole trainer_state.json, handing each log_history entry to the sink (in file order). */
export function readTrainerState(file: string, text: string, sink: RecordSink): void {
  const parser = new TrainerStateParser(file, sink);
  parser.push(text);
  parser.end();
}
