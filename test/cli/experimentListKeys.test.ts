// `npm run experiment -- --list-keys`, in-process through the CLI's exported main(argv, io): every config key with
// its type, default and description, from the config schema.
import { describe, expect, it } from 'vitest';
import { main } from '../../cli/experiment';
import { configKeys } from '../../src/core/experiment/config';
import { runCli } from '../support/cliRun';

const listKeys = () => runCli(main, ['--list-keys']);

/** The printed blocks by key: the head line `key  type  (default: JSON)` and the indented description below it. */
function blocks(stdout: string): Map<string, { head: string; description: string }> {
  const lines = stdout.trimEnd().split('\n');
  const out = new Map<string, { head: string; description: string }>();
  for (let i = 0; i < lines.length; i += 2) {
    const head = lines[i]!;
    out.set(head.split('  ')[0]!, { head, description: lines[i + 1] ?? '' });
  }
  return out;
}

describe('npm run experiment -- --list-keys', () => {
  it('prints every leaf key once, each with a type, a default and a description', async () => {
    const { code, stdout, stderr } = await listKeys();
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const printed = blocks(stdout);
    expect([...printed.keys()]).toEqual(configKeys());
    for (const [key, { head, description }] of printed) {
      expect(head, key).toMatch(/^\S+ {2}.+ {2}\(default: .+\)$/);
      expect(description, key).toMatch(/^ {4}\S.{9,}/);
    }
  });

  it('shows the type, default and meaning of a few keys as the schema declares them', async () => {
    const printed = blocks((await listKeys()).stdout);
    expect(printed.get('student.schedule')?.head).toBe(
      'student.schedule  adaptive | never | none | fixed:N | linear:N | alignment-only | competence-only (N a positive integer)  (default: "adaptive")',
    );
    expect(printed.get('student.gate.competenceThreshold')?.head).toBe(
      'student.gate.competenceThreshold  number ≥ 0  (default: 0.9)',
    );
    expect(printed.get('student.gate.competenceThreshold')?.description).toContain('γ');
    expect(printed.get('runtime.backend')?.head).toBe(
      'runtime.backend  cpu | wasm | webgl | webgpu  (default: "wasm")',
    );
    expect(printed.get('evaluation.passK')?.head).toBe(
      'evaluation.passK  non-empty array of integers ≥ 1  (default: [1,4,16])',
    );
    expect(printed.get('env.randomFacts')?.head).toBe('env.randomFacts  true | false  (default: false)');
  });
});
