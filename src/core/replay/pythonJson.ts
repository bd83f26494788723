// JSON as Python's json.dumps writes it by default: bare NaN, Infinity and -Infinity tokens are allowed (verl's
// file logger and TRL's trainer_state.json both contain them: metrics such as retire_opd/alignment_progress are NaN
// on most steps). Standard JSON.parse rejects those tokens, so they are swapped for sentinels outside strings first.

const SENTINELS: Record<string, number> = {
  '\u0000NaN': Number.NaN,
  '\u0000Infinity': Number.POSITIVE_INFINITY,
  '\u0000-Infinity': Number.NEGATIVE_INFINITY,
};

function replaceNonFiniteTokens(text: string): string {
  let out = '';
  let i = 0;
  let inString = false;
  while (i < text.length) {
    const ch = text[i] as string;
    if (inString) {
      out += ch;
      if (ch === '\\') {
        out += text[i + 1] ?? '';
        i += 2;
        continue;
      }
      if (ch === '"') inString = false;
      i += 1;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      i += 1;
      continue;
    }
    const token = ['-Infinity', 'Infinity', 'NaN'].find((t) => text.startsWith(t, i));
    if (token !== undefined) {
      out += JSON.stringify(`\u0000${token}`);
      i += token.length;
      continue;
    }
    out += ch;
    i += 1;
  }
  return out;
}

export class JsonSyntaxError extends Error {
  /** 1-based line of the error within the parsed text, when the engine reports a position. */
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/** Parse JSON that may hold NaN / Infinity / -Infinity; throws JsonSyntaxError with the line of the problem. */
export function parsePythonJson(text: string): unknown {
  const hasTokens = /NaN|Infinity/.test(text);
  const prepared = hasTokens ? replaceNonFiniteTokens(text) : text;
  try {
    return JSON.parse(prepared, (_key, value: unknown) =>
      typeof value === 'string' && value in SENTINELS ? SENTINELS[value] : value,
    );
  } catch {
    const offset = syntaxErrorOffset(prepared);
    // Offsets refer to `prepared`; sentinels hold no newlines, so its line numbers are the original text's.
    const line = prepared.slice(0, offset).split('\n').length;
    const near = prepared.slice(offset, offset + 20).split('\n')[0] ?? '';
    const reason = offset >= prepared.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(near)}`;
    throw new JsonSyntaxError(`not valid JSON: ${reason}`, line);
  }
}

/**
 * Offset of the first syntax error in `text` (JSON.parse in Node 20 does not report one for most errors): a
 * recursive-descent recogniser of the JSON grammar that stops where the input stops fitting it.
 */
export function syntaxErrorOffset(text: string): number {
  let i = 0;
  class Stop extends Error {}
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const fail = (): never => {
    throw new Stop();
  };
  const expect = (ch: string) => (text[i] === ch ? i++ : fail());
  const string = () => {
    expect('"');
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text.charCodeAt(i) < 0x20) fail();
      i++;
    }
    expect('"');
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        string();
        ws();
        expect(':');
        value();
        ws();
        if (text[i] === ',') i++;
        else return void expect('}');
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else return void expect(']');
      }
    }
    if (ch === '"') return string();
    const literal = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (literal === null) fail();
    else i += literal[0].length;
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
  }
  return i;
}
