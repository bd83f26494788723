// Quoting a user's input inside an error message safely: at most ~60 printable characters, and never a raw control
// byte, an undecodable byte (U+FFFD), a lone surrogate or a bidirectional override — those are shown as escapes, so
// a binary header or a terminal escape sequence in a log can neither flood nor corrupt the one-line message.

/** How many characters of offending input a message quotes at most. */
export const MAX_QUOTED_CHARS = 60;

function isUnsafe(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0xfffd ||
    code === 0xfeff ||
    (code >= 0xd800 && code <= 0xdfff) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

const escapeOf = (code: number) =>
  code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;

/**
 * `text` with unsafe characters escaped (\xNN, \uNNNN), cut to at most `max` output characters ("…" marks a cut).
 * Surrogate pairs (emoji etc.) are kept whole.
 */
export function printable(text: string, max = Number.POSITIVE_INFINITY): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let piece: string;
    const pair = code >= 0xd800 && code <= 0xdbff ? text.charCodeAt(i + 1) : Number.NaN;
    if (pair >= 0xdc00 && pair <= 0xdfff) {
      piece = text.slice(i, i + 2);
      i += 1;
    } else piece = isUnsafe(code) ? escapeOf(code) : (text[i] as string);
    if (out.length + piece.length > max) return `${out}…`;
    out += piece;
  }
  return out;
}

/**
 * A value from a log as a message quotes it: strings in double quotes (escaped, ≤ MAX_QUOTED_CHARS), numbers and
 * literals as written, objects and arrays only by their kind (they may be huge or deeply nested).
 */
export function quoteInput(value: unknown, max = MAX_QUOTED_CHARS): string {
  if (typeof value === 'string') return `"${printable(value.replace(/["\\]/g, '\\$&'), max)}"`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array […]';
  if (typeof value === 'object') return 'an object {…}';
  return typeof value;
}
