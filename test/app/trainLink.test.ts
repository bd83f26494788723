import { describe, expect, it } from 'vitest';
import { DEFAULT_FORM, formatTrainLink, parseTrainLink, splitHash } from '../../src/app/runs/trainLink';

const PRESETS = ['smoke', 'retire-shell', 'schedules'];

describe('the Train link', () => {
  it('splits the view from the query, so #train?preset=smoke is the Train view', () => {
    expect(splitHash('#train?preset=smoke')).toEqual({ view: 'train', query: 'preset=smoke' });
    expect(splitHash('#/train')).toEqual({ view: 'train', query: '' });
    expect(splitHash('')).toEqual({ view: '', query: '' });
  });

  it('fills every form field from a link, overrides one per set=', () => {
    const { form, errors } = parseTrainLink(
      'preset=smoke&seed=5&backend=wasm&set=student.schedule=never&set=student.lambdaOpd=0.2',
      PRESETS,
    );
    expect(errors).toEqual([]);
    expect(form).toEqual({
      preset: 'smoke',
      seed: '5',
      backend: 'wasm',
      overrides: 'student.schedule=never\nstudent.lambdaOpd=0.2',
    });
  });

  it('names each wrong field: preset, seed, backend, an override key and an override value, an unknown field', () => {
    const { errors } = parseTrainLink(
      'preset=smok&seed=-1&backend=tpu&set=student.windowSize=4&set=student.lambdaOpd=lots&colour=red',
      PRESETS,
    );
    expect(errors).toEqual([
      'colour: unknown link field (valid: preset, seed, backend, set)',
      'preset: unknown preset "smok" (available: smoke, retire-shell, schedules)',
      'seed: expected an integer ≥ 0 (got -1)',
      'backend: expected one of auto, webgpu, webgl, wasm, cpu, got "tpu"',
      expect.stringMatching(/^set student\.windowSize=4: unknown key "student\.windowSize"/),
      'set student.lambdaOpd=lots: student.lambdaOpd: expected a number, got "lots"',
    ]);
    expect(parseTrainLink('seed=abc', PRESETS).errors).toEqual(['seed: expected an integer ≥ 0, got "abc"']);
    expect(parseTrainLink('seed=1.5', PRESETS).errors).toEqual(['seed: expected an integer (got 1.5)']);
  });

  it('does not check the preset name before the catalog is in', () => {
    expect(parseTrainLink('preset=anything', null).errors).toEqual([]);
  });

  it('writes a link that reads back to the same form', () => {
    const form = {
      preset: 'smoke',
      seed: '7',
      backend: 'cpu' as const,
      overrides: 'student.schedule=fixed:30\n# a note\n',
    };
    const link = formatTrainLink(form);
    expect(link).toBe('#train?preset=smoke&seed=7&backend=cpu&set=student.schedule=fixed%3A30');
    const back = parseTrainLink(splitHash(link).query, PRESETS);
    expect(back.errors).toEqual([]);
    expect(back.form).toEqual({ ...form, overrides: 'student.schedule=fixed:30' });
    expect(formatTrainLink(DEFAULT_FORM)).toBe('#train?preset=retire-shell');
  });

  it('refuses a teacher checkpoint on another host or with a scheme, naming the key', () => {
    for (const value of ['http://127.0.0.2:9/teachers/shell', 'javascript:alert(1)']) {
      const { errors } = parseTrainLink(`preset=smoke&set=teacher.checkpoint=${encodeURIComponent(value)}`, PRESETS);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        new RegExp(`^set teacher\\.checkpoint=.*: teacher\\.checkpoint: expected a path inside this app`),
      );
    }
    expect(parseTrainLink('preset=smoke&set=teacher.checkpoint=teachers/shell', PRESETS).errors).toEqual([]);
  });
});
