// The experiment and sweep commands' user errors, in-process through their exported main(argv, io)
// (cli/cliMain.ts): exit code 2 and one `command: …` line naming what was wrong. Runs of the commands, Ctrl-C and the
// real process's exit status and streams are tested in experiment.e2e.test.ts.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main as experiment } from '../../cli/experiment';
import { main as sweep } from '../../cli/sweep';
import { runCli } from '../support/cliRun';

const tmp = mkdtempSync(join(tmpdir(), 'experiment-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const run = runCli;

describe('config errors', () => {
  it('an unknown preset lists the available presets (exit 2, no stack trace)', async () => {
    const r = await run(experiment, ['--preset', 'smok']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'unknown preset "smok" (available: actobs-vs-actionsft, control-shell, distill-forms, estimators, grpo-house, grpo-shell, grpo-shop, opd-house, opd-shell, opd-shop, retire-house, retire-shell, retire-shop, schedules, smoke, teacher-house, teacher-shell, teacher-shop)',
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('an unknown --set key lists the valid keys at that level', async () => {
    const r = await run(experiment, [
      '--preset',
      'smoke',
      '--set',
      'student.lamda_opd=0.1',
      '--out',
      join(tmp, 'never'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'unknown key "student.lamda_opd" (valid keys under "student": steps, grpo, schedule, lambdaOpd',
    );
    expect(existsSync(join(tmp, 'never'))).toBe(false);
  });

  it('a bad value names the key and what is valid', async () => {
    const a = await run(experiment, ['--preset', 'smoke', '--set', 'student.schedule=sometimes']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(
      /student\.schedule: expected one of adaptive, never, none, fixed:N, linear:N, alignment-only, competence-only/,
    );
    const b = await run(experiment, ['--preset', 'smoke', '--backend', 'tpu']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/runtime\.backend: .*cpu.*wasm.*webgpu/);
    const c = await run(experiment, ['--preset', 'smoke', '--frobnicate']);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain("Unknown option '--frobnicate'");
  });

  it('an empty --out, --resume or --export-teacher is refused naming the flag', async () => {
    const out = await run(experiment, ['--preset', 'smoke', '--out', '']);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe('experiment: --out: expected a folder path, got an empty string\n');
    const resume = await run(experiment, ['--resume', ' ']);
    expect(resume.stderr).toBe('experiment: --resume: expected a folder path, got only blanks\n');
    const sweepOut = await run(sweep, ['--preset', 'schedules', '--out', '']);
    expect(sweepOut.code).toBe(2);
    expect(sweepOut.stderr).toBe('sweep: --out: expected a folder path, got an empty string\n');
    const shareFrom = await run(sweep, ['--preset', 'schedules', '--share-from', '']);
    expect(shareFrom.stderr).toBe('sweep: --share-from: expected a folder path, got an empty string\n');
  });

  it('a sweep refuses --no-share together with --share-from', async () => {
    const r = await run(sweep, ['--preset', 'smoke', '--no-share', '--share-from', tmp, '--out', join(tmp, 'never')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('sweep: give --no-share or --share-from, not both\n');
  });

  it('a sweep refuses a population size that is not an integer ≥ 1, quoted as typed', async () => {
    for (const size of ['0', '1.5', 'two', '-3']) {
      const r = await run(sweep, ['--preset', 'smoke', `--population-size=${size}`, '--out', join(tmp, 'never')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`sweep: --population-size: expected an integer ≥ 1, got "${size}"\n`);
    }
  });

  it('a sweep refuses a population too large for memory before any folder exists, with the figure', async () => {
    let stderr = '';
    const out = join(tmp, 'never-population');
    const io = { stdout: () => undefined, stderr: (t: string) => void (stderr += t) };
    const argv = ['--preset', 'smoke', '--seeds', '0', '--vary', 'student.schedule=adaptive,never', '--out', out];
    const code = await sweep(argv, io, { memoryBudget: { bytes: 1, source: 'the test allows' } });
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^sweep: --population-size: a population of 2 runs needs about [\d.]+ MiB \(the leader [\d.]+ MiB, each of the 1 riders [\d.]+ MiB: host copies of [\d,]+ parameters, Adam state included\), more than the 0\.0 MiB the test allows; at most 1 fit — make the population smaller \(--population-size N caps it\)\n$/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a seed in another form than decimal digits is refused, quoted as typed', async () => {
    for (const seed of ['0x10', '-0']) {
      const r = await run(experiment, ['--preset', 'smoke', `--seed=${seed}`, '--out', join(tmp, 'never')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`experiment: --seed: expected an integer ≥ 0 in decimal digits, got "${seed}"\n`);
    }
    const s = await run(sweep, ['--preset', 'schedules', '--seeds', '1,0x10']);
    expect(s.stderr).toBe(
      'sweep: --seeds: expected comma-separated integers ≥ 0 in decimal digits, at most 4294967295 (e.g. 0,1,2); ' +
        'entry 2 of "1,0x10" is "0x10"\n',
    );
  });

  it('a teacher checkpoint that is a URL is a config error naming the key, before any run folder', async () => {
    for (const value of ['http://OTHER-HOST/teachers/shell', 'javascript:alert(1)', '//OTHER-HOST/t']) {
      const out = join(tmp, 'never-url');
      const r = await run(experiment, [
        '--preset',
        'retire-shell',
        '--set',
        `teacher.checkpoint=${value}`,
        '--out',
        out,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^experiment: --set: teacher\.checkpoint: expected a file path, not a URL/);
      expect(existsSync(out)).toBe(false);
    }
  });

  it('a resume of a folder without a run says so', async () => {
    const r = await run(experiment, ['--resume', join(tmp, 'nothing-here')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`experiment: --resume ${join(tmp, 'nothing-here')}: no such folder\n`);
    const empty = join(tmp, 'empty-folder');
    mkdirSync(empty);
    const e = await run(experiment, ['--resume', empty]);
    expect(e.code).toBe(2);
    expect(e.stderr).toBe(`experiment: ${empty} is not a run folder (no config.json)\n`);
  });
});

describe('npm run sweep', () => {
  it('rejects an unknown axis key before running anything', async () => {
    const r = await run(sweep, [
      '--preset',
      'smoke',
      '--vary',
      'student.shedule=never',
      '--out',
      join(tmp, 'sweep-bad'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown key "student.shedule"');
    expect(existsSync(join(tmp, 'sweep-bad'))).toBe(false);
  });
});

describe('shipped teacher', () => {
  it('retire-shell loads public/teachers/shell, and a config for another env is refused naming the fields', async () => {
    const { loadShippedTeacher } = await import('../../cli/experimentRunner');
    const { readPreset } = await import('../../cli/presetFiles');
    const { resolveConfig } = await import('../../src/core/experiment/config');
    const { parameterSpecs } = await import('../../src/engine/model');
    const { modelConfigFor } = await import('../../src/engine/modelConfig');
    const { createEnvFor } = await import('../../src/core/experiment/envFactory');
    const cfg = readPreset('retire-shell').config;
    const weights = await loadShippedTeacher(cfg);
    const specs = parameterSpecs(modelConfigFor(cfg, createEnvFor(cfg)));
    expect(weights!.map((w) => w.name).sort()).toEqual(specs.map((s) => s.key).sort());
    const house = resolveConfig({ env: { name: 'house' }, teacher: { checkpoint: 'teachers/shell' } }, cfg);
    await expect(loadShippedTeacher(house)).rejects.toThrow(/trained for another model\/env: vocabSize \d+ ≠ \d+/);
    const missing = resolveConfig({ teacher: { checkpoint: 'teachers/nowhere' } }, cfg);
    await expect(loadShippedTeacher(missing)).rejects.toThrow(/no checkpoint at .*teachers\/nowhere/);
  });
});
