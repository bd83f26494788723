import { describe, expect, it } from 'vitest';
import { DEFAULT_FORM, formatTrainLink, parseTrainLink, splitHash } from '../../src/app/train/trainLink';

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
      'seed: expected an integer ≥ 0 in decimal digits, got "-1"',
      'backend: expected one of auto, webgpu, webgl, wasm, cpu, got "tpu"',
      expect.stringMatching(/^set student\.windowSize=4: unknown key "student\.windowSize"/),
      'set student.lambdaOpd=lots: student.lambdaOpd: expected a number, got "lots"',
    ]);
    expect(parseTrainLink('seed=abc', PRESETS).errors).toEqual([
      'seed: expected an integer ≥ 0 in decimal digits, got "abc"',
    ]);
    expect(parseTrainLink('seed=1.5', PRESETS).errors).toEqual([
      'seed: expected an integer ≥ 0 in decimal digits, got "1.5"',
    ]);
    // Number() would read these as 16, 0, 5 and 0: a link must say the seed it runs, in decimal.
    for (const seed of ['0x10', '-0', '+5', '1e3', ' 7', '']) {
      expect(parseTrainLink(`seed=${encodeURIComponent(seed)}`, PRESETS).errors, seed).toEqual([
        `seed: expected an integer ≥ 0 in decimal digits, got ${JSON.stringify(seed)}`,
      ]);
    }
    expect(parseTrainLink('seed=4294967296', PRESETS).errors).toEqual([
      'seed: 4294967296 is above the limit (allowed: 0 … 4294967295)',
    ]);
  });

  it('refuses a field of one value given twice (two seed=, two preset=), naming it and both values', () => {
    const { errors } = parseTrainLink('preset=smoke&seed=1&seed=2&backend=wasm&backend=wasm&set=a=1&set=b=2', null);
    expect(errors).toContain('seed: given 2 times in the link ("1", "2"): give it once');
    expect(errors).toContain('backend: given 2 times in the link ("wasm", "wasm"): give it once');
    expect(errors.filter((e) => e.startsWith('set:'))).toEqual([]);
    expect(parseTrainLink('preset=smoke&preset=retire-shell', PRESETS).errors).toEqual([
      'preset: given 2 times in the link ("smoke", "retire-shell"): give it once',
    ]);
  });

  it('does not check the preset name before the catalog is in', () => {
    expect(parseTrainLink('preset=anything', null).errors).toEqual([]);
  });

  it('refuses a teacher checkpoint outside the app: another host, a scheme, an absolute path', () => {
    const errorsOf = (value: string) => parseTrainLink(`preset=retire-shell&set=teacher.checkpoint=${value}`, PRESETS);
    expect(errorsOf('http://OTHER-HOST/teachers/shell').errors).toEqual([
      'set teacher.checkpoint=http://OTHER-HOST/teachers/shell: teacher.checkpoint: expected a file path, not a URL ' +
        'or a scheme (http:): nothing is fetched from elsewhere (got "http://OTHER-HOST/teachers/shell")',
    ]);
    expect(errorsOf('javascript:alert(1)').errors[0]).toMatch(/not a URL or a scheme \(javascript:\)/);
    expect(errorsOf('//OTHER-HOST/teachers').errors[0]).toMatch(/not a URL of another host/);
    expect(errorsOf('/teachers/shell').errors).toEqual([
      'set teacher.checkpoint=/teachers/shell: teacher.checkpoint: expected a relative path inside the app, e.g. ' +
        'teachers/shell, not an absolute path (got "/teachers/shell")',
    ]);
    expect(errorsOf('teachers/house').errors).toEqual([]);
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
        new RegExp(
          `^set teacher\\.checkpoint=.*: teacher\\.checkpoint: expected a .*nothing is fetched from elsewhere`,
        ),
      );
    }
    expect(parseTrainLink('preset=smoke&set=teacher.checkpoint=teachers/shell', PRESETS).errors).toEqual([]);
  });
});
