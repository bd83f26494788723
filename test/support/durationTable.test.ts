// The duration table the test reporter writes (test/support/durationTable.ts): slowest first, seconds to 0.1.
import { describe, expect, it } from 'vitest';
import { durationTable } from './durationTable';

describe('durationTable', () => {
  it('lists the files slowest first with start, tests and total seconds', () => {
    const text = durationTable(
      [
        { project: 'unit', file: 'test/a.test.ts', tests: 3, startMs: 250, testsMs: 1000 },
        { project: 'e2e', file: 'test/b.e2e.test.ts', tests: 1, startMs: 1500, testsMs: 61_000 },
      ],
      'All files',
    );
    expect(text.split('\n')).toEqual([
      'All files: 2 files, 63.8 s summed over files (workers run files in parallel).',
      '',
      '| file | project | tests | start s | tests s | total s |',
      '|---|---|---|---|---|---|',
      '| test/b.e2e.test.ts | e2e | 1 | 1.5 | 61.0 | 62.5 |',
      '| test/a.test.ts | unit | 3 | 0.3 | 1.0 | 1.3 |',
      '',
    ]);
  });

  it('says so when no file ran', () => {
    expect(durationTable([], 'e2e files, measured')).toBe('e2e files, measured: no test file ran.\n');
  });
});
