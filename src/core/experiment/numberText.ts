// How numbers typed as text (--set values, --seed, a link's seed) are read: decimal only, never a JavaScript
// literal form. Number() alone would take "0x10" as 16, "-0" as 0, " 5 " as 5, "" as 0 and round
// "9007199254740993" to 9007199254740992, so a typo would run silently under another value.

/** The largest seed: seeds are hashed as unsigned 32-bit integers. */
export const MAX_SEED = 0xffffffff;

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;

/**
 * A decimal number, or an error in words (quoting the text as typed): hexadecimal, binary, octal, Infinity, NaN,
 * blanks and integers beyond ±(2^53 − 1) (which a number cannot hold exactly) are refused.
 */
export function parseDecimal(text: string): { value: number } | { error: string } {
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  if (!DECIMAL.test(text)) {
    return { error: `expected a ${/^[+-]?0[a-z]/i.test(text) ? 'decimal ' : ''}number, got ${shown}` };
  }
  const value = Number(text);
  if (INTEGER.test(text) && !Number.isSafeInteger(value)) {
    return { error: `${shown} is beyond ±9007199254740991, the integers a number holds exactly` };
  }
  if (!Number.isFinite(value)) return { error: `expected a finite number, got ${shown}` };
  return { value };
}

/** A seed as typed: decimal digits only (no sign, no "-0", no "0x10", no exponent), 0 … MAX_SEED. */
export function parseSeed(text: string): { value: number } | { error: string } {
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  if (!/^\d+$/.test(text)) return { error: `expected an integer ≥ 0 in decimal digits, got ${shown}` };
  const value = Number(text);
  // worded as the config's own limit check words it (config.ts CONFIG_LIMITS)
  if (value > MAX_SEED) return { error: `${text} is above the limit (allowed: 0 … ${MAX_SEED})` };
  return { value };
}
