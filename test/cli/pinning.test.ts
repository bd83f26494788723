// `npm run pinning` in-process (cli/pinning.ts): a folder that is not a run is refused in one line with exit 2. Its
// report on a finished run trains the smoke preset first: pinning.e2e.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main as pinning } from '../../cli/pinning';
import { runCli } from '../support/cliRun';

const tmp = mkdtempSync(join(tmpdir(), 'pinning-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const run = runCli;

describe('npm run pinning', () => {
  it('refuses a folder that is not a run, naming what it expected (exit 2)', async () => {
    const r = await run(pinning, [tmp]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a run folder with a checkpoint (expected config.json and checkpoints/LATEST)');
  });

  it('refuses an unknown option in one line (exit 2, not a defect) and prints its usage on --help', async () => {
    const bad = await run(pinning, [tmp, '--sample', '4']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^pinning: Unknown option '--sample'.*\(see --help\)\n$/);
    const help = await run(pinning, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: npm run pinning -- RUN_DIR');
  });
});
