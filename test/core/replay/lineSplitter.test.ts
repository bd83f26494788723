import { describe, expect, it } from 'vitest';
import { LineSplitter, LineTooLongError } from '../../../src/core/replay/lineSplitter';

function split(chunks: string[], max?: number): [string, number][] {
  const out: [string, number][] = [];
  const splitter = new LineSplitter((text, line) => out.push([text, line]), max);
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return out;
}

describe('LineSplitter', () => {
  it('numbers lines across \\n, \\r\\n and lone \\r, including empty ones', () => {
    expect(split(['a\nb\r\nc\rd\n\ne'])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
      ['', 5],
      ['e', 6],
    ]);
  });

  it('gives the same lines whatever the chunking, also a \\r\\n cut between two chunks', () => {
    const text = 'one\r\ntwo\rthree\n\r\nfour';
    const whole = split([text]);
    expect(split([...text])).toEqual(whole);
    expect(split(['one\r', '\ntwo\r', 'three\n\r', '\nfour'])).toEqual(whole);
    expect(whole.map(([t]) => t)).toEqual(['one', 'two', 'three', '', 'four']);
  });

  it('ends a final line without a newline, and one ending in a lone \\r', () => {
    expect(split(['a\nb'])).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(split(['a\r'])).toEqual([['a', 1]]);
    expect(split([''])).toEqual([]);
  });

  it('refuses a line longer than the limit as soon as it is exceeded, naming its number', () => {
    const splitter = new LineSplitter(() => undefined, 10);
    splitter.push('short\n');
    splitter.push('0123456');
    expect(() => splitter.push('789ab')).toThrow(LineTooLongError);
    try {
      new LineSplitter(() => undefined, 4).push('ok\ntoo long\n');
    } catch (e) {
      expect((e as LineTooLongError).line).toBe(2);
      return;
    }
    throw new Error('expected a LineTooLongError');
  });
});
