// The wall time of each test file as vitest measured it, as a Markdown table: what `npm test` and CI write to
// test-results/durations.md (and print for the e2e project), so a file's real duration is read, not guessed from
// its timeout.

/** One file's figures, in milliseconds as vitest reports them. */
export interface FileDuration {
  readonly project: string;
  readonly file: string;
  readonly tests: number;
  /** environment set-up, harness preparation, import of the file and its set-up files */
  readonly startMs: number;
  /** every test and hook of the file */
  readonly testsMs: number;
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/** Rows slowest first (start + tests), one table per call; an empty list gives a line that says so. */
export function durationTable(rows: readonly FileDuration[], title: string): string {
  if (rows.length === 0) return `${title}: no test file ran.\n`;
  const sorted = [...rows].sort(
    (a, b) => b.startMs + b.testsMs - (a.startMs + a.testsMs) || a.file.localeCompare(b.file),
  );
  const total = sorted.reduce((s, r) => s + r.startMs + r.testsMs, 0);
  const lines = [
    `${title}: ${sorted.length} files, ${seconds(total)} s summed over files (workers run files in parallel).`,
    '',
    '| file | project | tests | start s | tests s | total s |',
    '|---|---|---|---|---|---|',
    ...sorted.map(
      (r) =>
        `| ${r.file} | ${r.project} | ${r.tests} | ${seconds(r.startMs)} | ${seconds(r.testsMs)} | ${seconds(r.startMs + r.testsMs)} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
