import { describe, expect, it } from 'vitest';
import { chooseThreads } from '../../src/core/threadChoice';

describe('chooseThreads', () => {
  it('takes more threads only when they are more than 5 % faster', () => {
    expect(
      chooseThreads([
        { threads: 1, ms: 100 },
        { threads: 2, ms: 80 },
      ]).chosen,
    ).toBe(2);
    expect(
      chooseThreads([
        { threads: 2, ms: 97 },
        { threads: 1, ms: 100 },
      ]).chosen,
    ).toBe(1);
    expect(
      chooseThreads([
        { threads: 1, ms: 100 },
        { threads: 2, ms: 400 },
      ]).chosen,
    ).toBe(1);
  });
  it('falls back to 1 thread without a valid timing, keeping the timings it got', () => {
    const c = chooseThreads([{ threads: 2, ms: NaN }]);
    expect(c).toEqual({ chosen: 1, timings: [{ threads: 2, ms: NaN }], reason: 'no valid timing: 1 thread' });
  });
});
