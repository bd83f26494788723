// JSON as Python's json.dumps writes it by default: bare NaN, Infinity and -Infinity tokens are allowed (verl's
// file logger and TRL's trainer_state.json both contain them: metrics such as retire_opd/alignment_progress are NaN
// on most steps). Standard JSON.parse rejects those tokens, so they are swapped for sentinel strings outside strings
// first and swapped back after. Nothing here recurses on the input's nesting: the scan counts brackets and refuses
// more than MAX_JSON_DEPTH levels up front (logs nest 2–3 deep), JSON.parse itself is iterative in V8, and the
// syntax-error locator keeps an explicit stack — so no input can exhaust the call stack.
import { quoteInput } from './quoteInput';

/** Deepest nesting accepted; a log needs 3 (trainer_state.json → log_history → entry). */
export const MAX_JSON_DEPTH = 64;

const SENTINELS: Record<string, number> = {
  '\u0000NaN': Number.NaN,
  '\u0000Infinity': Number.POSITIVE_INFINITY,
  '\u0000-Infinity': Number.NEGATIVE_INFINITY,
};

export class JsonSyntaxError extends Error {
  /** 1-based line of the error within the parsed text. */
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/** 1-based line of `offset` in `text` (line breaks: \n, \r\n, lone \r). */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) line += 1;
  }
  return line;
}

const SPECIAL = /["NI[\]{}]/g;

/**
 * One pass over the text outside strings: checks the nesting depth and, when the text holds NaN/Infinity tokens,
 * returns it with those swapped for sentinel strings (else the text itself).
 */
function prepare(text: string): { prepared: string; sentinels: boolean } {
  let depth = 0;
  let pieces: string[] | null = null;
  let copied = 0;
  SPECIAL.lastIndex = 0;
  for (let m = SPECIAL.exec(text); m !== null; m = SPECIAL.exec(text)) {
    const i = m.index;
    const ch = m[0];
    if (ch === '"') {
      // Skip the string: the next quote not escaped by an odd number of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end > 0) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 92) slashes += 1;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end < 0) break; // unterminated: JSON.parse will fail and the locator says where
      SPECIAL.lastIndex = end + 1;
    } else if (ch === '[' || ch === '{') {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) {
        throw new JsonSyntaxError(
          `JSON nested deeper than ${MAX_JSON_DEPTH} levels (not a training log)`,
          lineAt(text, i),
        );
      }
    } else if (ch === ']' || ch === '}') depth -= 1;
    else {
      const negative = ch === 'I' && text.charCodeAt(i - 1) === 45;
      const token = ch === 'N' ? 'NaN' : 'Infinity';
      if (!text.startsWith(token, i)) continue;
      pieces ??= [];
      const start = negative ? i - 1 : i;
      pieces.push(text.slice(copied, start), JSON.stringify(`\u0000${negative ? '-' : ''}${token}`));
      copied = i + token.length;
      SPECIAL.lastIndex = copied;
    }
  }
  if (pieces === null) return { prepared: text, sentinels: false };
  pieces.push(text.slice(copied));
  return { prepared: pieces.join(''), sentinels: true };
}

/** Swap sentinel strings back for numbers (nesting is bounded by MAX_JSON_DEPTH, so recursion is safe here). */
function restore(value: unknown): unknown {
  if (typeof value === 'string') return value in SENTINELS ? SENTINELS[value] : value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restore(value[i]);
  } else if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const v = object[key];
      if (typeof v === 'string' || (typeof v === 'object' && v !== null)) {
        Object.defineProperty(object, key, { value: restore(v), writable: true, enumerable: true, configurable: true });
      }
    }
  }
  return value;
}

/** Parse JSON that may hold NaN / Infinity / -Infinity; throws JsonSyntaxError with the line of the problem. */
export function parsePythonJson(text: string): unknown {
  const { prepared, sentinels } = prepare(text);
  let value: unknown;
  try {
    value = JSON.parse(prepared);
  } catch {
    const offset = syntaxErrorOffset(text);
    const near = text.slice(offset, offset + 20).split(/\r?\n|\r/)[0] ?? '';
    const reason = offset >= text.length ? 'unexpected end of input' : `unexpected ${quoteInput(near, 20)}`;
    throw new JsonSyntaxError(`not valid JSON: ${reason}`, lineAt(text, offset));
  }
  return sentinels ? restore(value) : value;
}

const LITERAL = /true|false|null|NaN|-?Infinity|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * Offset of the first syntax error in `text` (JSON.parse in Node 20 does not report one for most errors), or
 * text.length when the text is valid: a recogniser of the JSON grammar (plus NaN/Infinity) with an explicit stack.
 */
export function syntaxErrorOffset(text: string): number {
  const n = text.length;
  let i = 0;
  const stack: ('array' | 'object')[] = [];
  const ws = () => {
    for (let c = text.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++i));
  };
  /** Reads a string at i; false (i at the fault) when there is none or it is broken. */
  const string = (): boolean => {
    if (text[i] !== '"') return false;
    for (i += 1; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i += 1;
        return true;
      }
      if (c === 92) i += 1;
      else if (c < 0x20) return false;
    }
    i = n;
    return false;
  };
  /** Reads `"key":` after an object's `{` or `,`. */
  const key = (): boolean => {
    ws();
    if (!string()) return false;
    ws();
    if (text[i] !== ':') return false;
    i += 1;
    return true;
  };
  for (;;) {
    // A value starts here.
    ws();
    const ch = text[i];
    if (ch === '{' || ch === '[') {
      i += 1;
      ws();
      if (text[i] === (ch === '{' ? '}' : ']')) i += 1;
      else {
        stack.push(ch === '{' ? 'object' : 'array');
        if (ch === '{' && !key()) return i;
        continue;
      }
    } else if (ch === '"') {
      if (!string()) return i;
    } else {
      LITERAL.lastIndex = i;
      if (!LITERAL.test(text)) return i;
      i = LITERAL.lastIndex;
    }
    // A value ended: close containers, or go on after a comma.
    for (;;) {
      ws();
      const top = stack[stack.length - 1];
      if (top === undefined) return i;
      if (text[i] === ',') {
        i += 1;
        if (top === 'object' && !key()) return i;
        break;
      }
      if (text[i] !== (top === 'object' ? '}' : ']')) return i;
      i += 1;
      stack.pop();
    }
  }
}
