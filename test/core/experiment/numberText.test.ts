import { describe, expect, it } from 'vitest';
import { MAX_SEED, parseDecimal, parseSeed } from '../../../src/core/experiment/numberText';

describe('parseDecimal', () => {
  it('reads decimal numbers, signed, fractional and with an exponent', () => {
    expect(parseDecimal('12')).toEqual({ value: 12 });
    expect(parseDecimal('-0.25')).toEqual({ value: -0.25 });
    expect(parseDecimal('1e-3')).toEqual({ value: 0.001 });
    expect(parseDecimal('.5')).toEqual({ value: 0.5 });
  });

  it('refuses literal forms Number() accepts: hexadecimal, binary, Infinity, blanks', () => {
    expect(parseDecimal('0x10')).toEqual({ error: 'expected a decimal number, got "0x10"' });
    expect(parseDecimal('0b11')).toEqual({ error: 'expected a decimal number, got "0b11"' });
    expect(parseDecimal('Infinity')).toEqual({ error: 'expected a number, got "Infinity"' });
    expect(parseDecimal('')).toEqual({ error: 'expected a number, got ""' });
    expect(parseDecimal('1e400')).toEqual({ error: 'expected a finite number, got "1e400"' });
  });

  it('refuses an integer beyond 2^53 − 1, quoting it as typed rather than rounded', () => {
    expect(parseDecimal('9007199254740991')).toEqual({ value: 9007199254740991 });
    expect(parseDecimal('9007199254740993')).toEqual({
      error: '"9007199254740993" is beyond ±9007199254740991, the integers a number holds exactly',
    });
  });
});

describe('parseSeed', () => {
  it('reads decimal digits up to 2^32 − 1', () => {
    expect(parseSeed('0')).toEqual({ value: 0 });
    expect(parseSeed('007')).toEqual({ value: 7 });
    expect(parseSeed(String(MAX_SEED))).toEqual({ value: 4294967295 });
  });

  it('refuses every other form: 0x10, -0, +5, 1e3, 1.0, blanks, and 2^32', () => {
    for (const text of ['0x10', '-0', '+5', '1e3', '1.0', ' 3', '']) {
      expect(parseSeed(text), text).toEqual({
        error: `expected an integer ≥ 0 in decimal digits, got ${JSON.stringify(text)}`,
      });
    }
    expect(parseSeed('4294967296')).toEqual({ error: '4294967296 is above the limit (allowed: 0 … 4294967295)' });
  });
});
