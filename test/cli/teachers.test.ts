// `npm run teachers` in-process (cli/teachers.ts): its usage, and the one-line refusals of a bad option or value
// (exit 2), before any teacher is loaded. Its measurements of the shipped teachers: shippedTeachers.test.ts.
import { describe, expect, it } from 'vitest';
import { main as teachers } from '../../cli/teachers';
import { runCommand } from '../../cli/cliMain';
import { runCli } from '../support/cliRun';

describe('npm run teachers', () => {
  it('prints its usage on --help and names --set for another task world', async () => {
    const r = await runCli(teachers, ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: npm run teachers --');
    expect(r.stdout).toContain('--set key=value');
  });

  it('refuses an unknown option, a repeated one and a bad number in one line each (exit 2)', async () => {
    const cases: [string[], RegExp][] = [
      [['--task', '4'], /^teachers: Unknown option '--task'.*\(see --help\)\n$/],
      [['--tasks', '2', '--tasks', '3'], /^teachers: --tasks is given 2 times[^\n]*\n$/],
      [['--tasks', '0'], /^teachers: --tasks: expected an integer ≥ 1, got "0"\n$/],
      [['--seed', '1.5'], /^teachers: --seed: expected an integer ≥ 0, got "1.5"\n$/],
    ];
    for (const [args, message] of cases) {
      let stderr = '';
      const code = await runCommand('teachers', teachers, args, {
        stdout: () => {},
        stderr: (t) => void (stderr += t),
      });
      expect([args, code]).toEqual([args, 2]);
      expect(stderr).toMatch(message);
    }
  });
});
