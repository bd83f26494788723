// Prints one plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own summary, so CI logs that
// read a runner's last line see the outcome in the common form.
import type { Reporter, TestModule } from 'vitest/node';

type UnhandledErrors = Parameters<NonNullable<Reporter['onTestRunEnd']>>[1];

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: UnhandledErrors): void {
    let passed = 0;
    // an unhandled error fails the run (vitest exits non-zero), so it counts as a failure here too
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      // a file that failed outside its tests (import, beforeAll) leaves them skipped: count the file as a failure
      const tests = [...module.children.allTests()];
      if (module.state() === 'failed' && !tests.some((t) => t.result().state === 'failed')) failed += 1;
      for (const test of tests) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
