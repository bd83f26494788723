// Writes test-results/durations.md after every run (every file, both projects) and prints the e2e project's table,
// so CI's log holds each e2e file's measured duration. Listed before the summary reporter, whose one closing line
// stays the last line of the run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { durationTable, type FileDuration } from './durationTable';

const OUT_DIR = join(import.meta.dirname, '..', '..', 'test-results');

function row(module: TestModule): FileDuration {
  const d = module.diagnostic();
  return {
    project: module.project.name,
    file: module.relativeModuleId,
    tests: [...module.children.allTests()].length,
    startMs: d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration,
    testsMs: d.duration,
  };
}

export default class DurationReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows = testModules.map(row);
    mkdirSync(OUT_DIR, { recursive: true });
    const when = new Date().toISOString();
    writeFileSync(
      join(OUT_DIR, 'durations.md'),
      `# Test file durations (${when})\n\n${durationTable(rows, 'All files')}`,
    );
    const e2e = rows.filter((r) => r.project === 'e2e');
    if (e2e.length > 0) process.stdout.write(`\n${durationTable(e2e, 'e2e files, measured')}`);
  }
}
