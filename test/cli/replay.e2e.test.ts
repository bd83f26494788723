// `npm run replay` as a process, the way the npm script starts it (`tsx cli/replay.ts`): the script's exit status and
// its stdout/stderr wiring. What the command computes and says is tested in-process in replay.test.ts.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');

/** Run the script; resolves its exit status and both streams. */
function replay(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(tsx, ['cli/replay.ts', ...args], { cwd: root, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

describe.concurrent('the replay script', () => {
  it('exits 0 and writes one JSON line per evaluation and the summary to stdout, nothing to stderr', async () => {
    const run = await replay('test/fixtures/replay/verl_retire_opd.jsonl', '--teacher-performance', '0.8');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    // 7 evaluations, then the summary (replay.test.ts checks their content)
    expect(lines).toHaveLength(8);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: 'summary', retired: true, trigger_step: 35 });
  });

  it('exits 2 on a user error, with one line on stderr and nothing on stdout', async () => {
    const run = await replay('test/fixtures/replay/no-such-file.jsonl', '--teacher-performance', '0.8');
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^test\/fixtures\/replay\/no-such-file\.jsonl: no such file[^\n]*\n$/);
  });
});
