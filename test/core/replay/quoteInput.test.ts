import { describe, expect, it } from 'vitest';
import { MAX_QUOTED_CHARS, printable, quoteInput } from '../../../src/core/replay/quoteInput';

describe('quoteInput', () => {
  it('escapes control characters, undecodable bytes, BOMs and bidi overrides instead of echoing them', () => {
    expect(printable('a\u0000b\u001b[31m\u007f\u0085\ufffd\ufeff\u202e')).toBe(
      'a\\x00b\\x1b[31m\\x7f\\x85\\ufffd\\ufeff\\u202e',
    );
    expect(printable('tab\tand\r\nnewline')).toBe('tab\\x09and\\x0d\\x0anewline');
  });

  it('keeps printable text, accents and emoji (surrogate pairs) as they are', () => {
    expect(printable('val/success_rate é ✓ 😀')).toBe('val/success_rate é ✓ 😀');
    expect(printable('\ud800x')).toBe('\\ud800x'); // a lone surrogate is escaped
  });

  it(`quotes at most ${MAX_QUOTED_CHARS} characters of a string, marking the cut`, () => {
    const quoted = quoteInput('x'.repeat(10_000));
    expect(quoted).toBe(`"${'x'.repeat(60)}…"`);
    // escapes count towards the limit: 20 NULs are 80 characters once escaped, so 15 of them fit
    expect(quoteInput('\u0000'.repeat(20))).toBe(`"${'\\x00'.repeat(15)}…"`);
    expect(quoteInput('say "hi"')).toBe('"say \\"hi\\""');
  });

  it('names objects and arrays by kind (they may be huge or deeply nested) and writes numbers as they are', () => {
    expect(quoteInput({ a: 1 })).toBe('an object {…}');
    expect(quoteInput([[[]]])).toBe('an array […]');
    expect(quoteInput(1.5)).toBe('1.5');
    expect(quoteInput(Number.NaN)).toBe('NaN');
    expect(quoteInput(null)).toBe('null');
    expect(quoteInput(true)).toBe('true');
  });
});
