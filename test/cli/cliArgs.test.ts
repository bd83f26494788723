import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../cli/cliArgs';

const OPTIONS = {
  seed: { type: 'string' },
  set: { type: 'string', multiple: true },
  dev: { type: 'boolean' },
} as const;

describe('parseFlags', () => {
  it('refuses a single-valued flag given twice, naming the flag and both values, instead of keeping the last', () => {
    expect(() => parseFlags(['--seed', '1', '--seed', '2'], OPTIONS)).toThrow(
      '--seed is given 2 times ("1", "2"): give it once',
    );
    expect(() => parseFlags(['--seed=1', '--dev', '--seed=1'], OPTIONS)).toThrow('--seed is given 2 times');
    expect(() => parseFlags(['--dev', '--dev'], OPTIONS)).toThrow(
      '--dev is given 2 times (--dev, --dev): give it once',
    );
  });

  it('keeps every value of a repeatable flag, and one value of a flag given once', () => {
    expect(parseFlags(['--set', 'a=1', '--seed', '3', '--set', 'b=2'], OPTIONS).values).toEqual({
      set: ['a=1', 'b=2'],
      seed: '3',
    });
  });

  it('refuses an unknown flag as a user error pointing at --help', () => {
    expect(() => parseFlags(['--sed', '1'], OPTIONS)).toThrow(/Unknown option '--sed'.*\(see --help\)$/);
  });
});
