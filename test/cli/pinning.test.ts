// `npm run pinning` in-process (cli/pinning.ts): on a finished smoke run it reports the student's and the teacher's
// test success split by truthful / misleading skill entries, the task counts adding up to the evaluated tasks; a
// folder that is not a run is refused in one line with exit 2.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main as experiment } from '../../cli/experiment';
import { main as pinning } from '../../cli/pinning';
import { runCli } from '../support/cliRun';

const tmp = mkdtempSync(join(tmpdir(), 'pinning-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const run = runCli;

describe('npm run pinning', () => {
  it('splits a finished run’s student and teacher success by truthful and misleading skill entries', async () => {
    const dir = join(tmp, 'smoke');
    expect((await run(experiment, ['--preset', 'smoke', '--no-progress', '--out', dir])).code).toBe(0);
    const r = await run(pinning, [dir, '--tasks', '24', '--samples', '2']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows).toHaveLength(2);
    const cells = rows[1]!.trim().split(/\s+/);
    expect(cells[0]).toBe('smoke');
    const [truthful, misleading] = cells[3]!.split('/').map(Number);
    expect(truthful! + misleading!).toBe(24);
    expect(misleading).toBeGreaterThan(0); // env.misleadingSkillFraction 0.2 of the smoke preset
    for (const c of cells.slice(4)) expect(c).toMatch(/^\d+\.\d%$/);
  }, 120_000);

  it('refuses a folder that is not a run, naming what it expected (exit 2)', async () => {
    const r = await run(pinning, [tmp]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a run folder with a checkpoint (expected config.json and checkpoints/LATEST)');
  });
});
