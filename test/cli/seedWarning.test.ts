// The tuning path's held-out seed warning (core/experiment/seedProtocol.ts): `npm run sweep` and `npm run experiment`
// say so on stderr when handed a reporting seed. Each call here is refused right after the warning (a bad --vary, an
// --export-teacher equal to --out), so nothing trains.
import { describe, expect, it } from 'vitest';
import { main as experiment } from '../../cli/experiment';
import { main as sweep } from '../../cli/sweep';
import { runCli } from '../support/cliRun';

describe('the held-out seed warning', () => {
  it('is printed by the sweep for a reporting seed, and not for tuning seeds', async () => {
    const held = await runCli(sweep, ['--preset', 'smoke', '--seeds', '0,1004', '--vary', 'nope=1']);
    expect(held.code).toBe(2);
    expect(held.stderr).toMatch(/^warning: seed 1004 belongs to the held-out reporting set \(1000–1009\)/);
    const tuning = await runCli(sweep, ['--preset', 'smoke', '--seeds', '0,1', '--vary', 'nope=1']);
    expect(tuning.code).toBe(2);
    expect(tuning.stderr).not.toContain('warning');
  });

  it('is printed by a single experiment on a reporting seed', async () => {
    const r = await runCli(experiment, ['--preset', 'smoke', '--seed', '1000', '--out', 'x', '--export-teacher', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^warning: seed 1000 belongs to the held-out reporting set/);
    expect(r.stderr).toContain('--export-teacher must name another folder than --out');
  });
});
