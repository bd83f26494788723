// Cutting a text that arrives in chunks into lines, with their 1-based numbers, holding at most one partial line.
// Line breaks are \n, \r\n and a lone \r (a \r at the end of a chunk waits for the next one to tell which).

/** The longest line accepted (a verl line is a few kB; a longer one is not a log line and would exhaust memory). */
const MAX_LINE_CHARS = 16 * 1024 * 1024;

export class LineTooLongError extends Error {
  constructor(readonly line: number) {
    super(`line longer than ${MAX_LINE_CHARS / (1024 * 1024)} MB (not a line-per-record log)`);
  }
}

export class LineSplitter {
  /** The current partial line, in pieces (joined only once its end arrives). */
  private partial: string[] = [];
  private partialChars = 0;
  private nextLine = 1;

  constructor(
    private readonly onLine: (text: string, line: number) => void,
    private readonly maxLineChars = MAX_LINE_CHARS,
  ) {}

  push(chunk: string): void {
    if (chunk.indexOf('\n') < 0 && chunk.indexOf('\r') < 0) {
      this.partial.push(chunk);
      this.partialChars += chunk.length;
      if (this.partialChars > this.maxLineChars) throw new LineTooLongError(this.nextLine);
      return;
    }
    this.partial.push(chunk);
    let text = this.partial.join('');
    let start = 0;
    for (;;) {
      const lf = text.indexOf('\n', start);
      const cr = text.indexOf('\r', start);
      let end: number;
      let next: number;
      if (cr >= 0 && (lf < 0 || cr < lf)) {
        if (cr === text.length - 1) break; // \r last: maybe half of \r\n
        end = cr;
        next = text.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
      } else if (lf >= 0) {
        end = lf;
        next = lf + 1;
      } else break;
      this.emit(text.slice(start, end));
      start = next;
    }
    text = text.slice(start);
    if (text.length > this.maxLineChars) throw new LineTooLongError(this.nextLine);
    this.partial = text === '' ? [] : [text];
    this.partialChars = text.length;
  }

  end(): void {
    const rest = this.partial.join('');
    this.partial = [];
    this.partialChars = 0;
    if (rest.endsWith('\r')) {
      this.emit(rest.slice(0, -1));
      return;
    }
    if (rest !== '') this.emit(rest);
  }

  private emit(text: string): void {
    if (text.length > this.maxLineChars) throw new LineTooLongError(this.nextLine);
    const line = this.nextLine;
    this.nextLine += 1;
    this.onLine(text, line);
  }
}
