// `npm run pinning` in-process (cli/pinning.ts) on a finished smoke run, trained here (hence e2e): it reports the
// student's and the teacher's test success split by truthful / misleading skill entries, the task counts adding up
// to the evaluated tasks.
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

describe('npm run pinning on a trained run', () => {
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
});
