import { describe, expect, it } from 'vitest';
import { chooseThreads } from '../../src/core/threadChoice';
import { threadUseText } from '../../src/app/publish/threadUse';

describe('the footer’s line on the threads the runs use', () => {
  it('says one thread, and the timings that chose it, when the calibration found one thread faster', () => {
    // 2 threads 140 ms, 1 thread 120 ms: more threads are slower, so 1 (threadChoice.ts)
    const c = chooseThreads([
      { threads: 2, ms: 140 },
      { threads: 1, ms: 120 },
    ]);
    expect(c.chosen).toBe(1);
    expect(threadUseText(c, 2)).toBe(
      'wasm runs use 1 thread: the start-up calibration timed 2 threads at 140 ms and 1 thread at 120 ms ' +
        '(more threads must be 5 % faster)',
    );
  });

  it('says two threads when they were more than 5 % faster', () => {
    const c = chooseThreads([
      { threads: 2, ms: 100 },
      { threads: 1, ms: 120 },
    ]);
    expect(threadUseText(c, 2)).toMatch(/^wasm runs use 2 threads: /);
  });

  it('names the override, the single core, and the default before the calibration finishes', () => {
    expect(threadUseText({ chosen: 3, timings: [], reason: 'override: 3' }, 2)).toBe(
      'wasm runs use 3 threads, as set by ?threads= in the address or localStorage retirelab.wasmThreads',
    );
    expect(threadUseText({ chosen: 1, timings: [], reason: 'one logical core' }, 1)).toBe(
      'wasm runs use 1 thread: this machine has one logical core',
    );
    expect(threadUseText(null, 4)).toBe(
      'wasm runs use 4 threads (one per logical core) until the start-up thread calibration finishes',
    );
  });
});
