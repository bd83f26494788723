// Two test projects; `npm test` runs both (after the type check, lint and format check).
//   unit — every other `test/**/*.test.ts`: no browser, no Node child process, no training over a whole preset;
//          the loop while editing (`npm run test:unit`); each file's measured time is in test-results/durations.md
//          after a run.
//   e2e  — every `test/**/*.e2e.test.ts`: the file launches Chromium (test/support/chromium.ts,
//          test/app/appServer.ts), spawns a process (a CLI as the user starts it, the replay fuzz runner), or runs the
//          trainer over a whole preset; seconds to minutes per file (`npm run test:e2e`).
// A new test file that does any of these three is named `<module>.e2e.test.ts`, beside the module's unit tests.
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

const E2E = 'test/**/*.e2e.test.ts';
// unit files that replace a module (vi.mock): they need a module graph of their own, so they run isolated
const MOCKS_MODULES = ['test/app/queueMemory.test.ts'];

export default defineConfig({
  test: {
    environment: 'node',
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // the duration reporter writes test-results/durations.md; the summary reporter's closing line stays last
    reporters: ['default', './test/support/durationReporter.ts', './test/support/summaryReporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, E2E, ...MOCKS_MODULES],
          // the files share each worker's module graph (tfjs, the presets) instead of importing it once per file:
          // 143 s → 50 s on 2 cores. A file that needs a tfjs backend sets it (most set cpu in beforeAll) and
          // restores any global it stubs; one that replaces a module goes in MOCKS_MODULES.
          isolate: false,
          // vitest's default, cores − 1 workers, is one on a 2-core machine; these files are short and mostly
          // single-threaded, so one per core halves the project's time there
          maxWorkers: Math.max(2, availableParallelism()),
          // the unit project first, then e2e (vitest runs projects with different maxWorkers as ordered groups; a
          // --sequence.* flag on the command line resets the order: give it with --project unit or --project e2e)
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'unit-mocks',
          include: MOCKS_MODULES,
          maxWorkers: Math.max(2, availableParallelism()),
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'e2e', include: [E2E], sequence: { groupOrder: 1 } } },
    ],
  },
});
