// The paired report over a sweep folder (cli/pairedReport.ts): arms read from each completed run's config.json by
// the --by key, paired on the seed against --baseline; runs without a completed summary are left out and named.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pairedReport, shellWord } from '../../cli/pairedReport';
import { applyOverrides } from '../../src/core/experiment/config';
import { DEFAULT_CONFIG } from '../../src/core/experiment/configSchema';

const dir = mkdtempSync(join(tmpdir(), 'paired-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(form: string, seed: number, success: number, status = 'completed'): void {
  const d = join(dir, `${form}_seed-${seed}`);
  mkdirSync(d);
  const cfg = applyOverrides(DEFAULT_CONFIG, [`student.distill.form=${form}`, `seed=${seed}`]);
  writeFileSync(join(d, 'config.json'), JSON.stringify(cfg));
  writeFileSync(
    join(d, 'summary.json'),
    JSON.stringify({
      seed,
      status,
      test: { successRate: success },
      temperatureControl: [{ temperature: 0.4, successRate: success + 0.1, argEntropy: 1 }],
      gate: { triggerStep: null },
    }),
  );
}

describe('the paired report command', () => {
  it('pairs each form with the baseline on the seeds both completed, from the run folders', async () => {
    run('reverse-kl', 1000, 0.5);
    run('reverse-kl', 1001, 0.6);
    run('gkd-jsd', 1000, 0.7);
    run('gkd-jsd', 1001, 0.8);
    run('kl-reward', 1000, 0.1, 'interrupted');
    const out = join(dir, 'page.md');
    let printed = '';
    const io = { stdout: (t: string) => void (printed += t), stderr: () => undefined };
    const code = await pairedReport(
      ['--dir', dir, '--by', 'student.distill.form', '--baseline', 'reverse-kl', '--seeds', '1000,1001', '--out', out],
      io,
    );
    expect(code).toBe(0);
    const page = readFileSync(out, 'utf8');
    // differences 0.2 and 0.2: mean 20 points, zero spread (at T = 1 and at T = 0.4 alike)
    expect(page).toContain('| gkd-jsd | 2 | 20.0 ± 0.0 | 2 of 2 | measurably higher |');
    expect(page).toContain('```sh\nnode --import tsx cli/pairedReport.ts --dir');
    expect(page).not.toContain('kl-reward |'); // the interrupted run is not a result
    expect(printed).toContain(`page: ${out}`);
  });

  it('writes the command so a shell reads every argument back (spaces and quotes quoted)', () => {
    expect(shellWord('--seeds')).toBe('--seeds');
    expect(shellWord("it's a note")).toBe(`'it'\\''s a note'`);
  });
});
