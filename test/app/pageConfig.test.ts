import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/core/experiment/config';
import { assertFetchable, pageConfig, pageConfigOrError } from '../../src/app/pageConfig';

describe('the configuration a page form starts', () => {
  it('applies the seed, then the overrides, over the preset', () => {
    const config = pageConfig(DEFAULT_CONFIG, ['student.lambdaOpd=0.2', 'seed=7'], 3);
    expect(config.student.lambdaOpd).toBe(0.2);
    // an override names the seed too: the override wins, as `--set seed=7` would after --seed
    expect(config.seed).toBe(7);
    expect(pageConfig(DEFAULT_CONFIG, [], 3).seed).toBe(3);
    expect(pageConfig(DEFAULT_CONFIG, []).seed).toBe(DEFAULT_CONFIG.seed);
  });

  it('names an unknown key and a file outside the app under "overrides:"', () => {
    const unknown = pageConfigOrError(DEFAULT_CONFIG, ['student.lambdaOdp=0.2']);
    expect(unknown.config).toBeNull();
    expect(unknown.error).toMatch(/^overrides: .*student\.lambdaOdp/);
    const offOrigin = pageConfigOrError(DEFAULT_CONFIG, ['teacher.checkpoint=teachers/../../x']);
    expect(offOrigin).toEqual({
      config: null,
      error: expect.stringMatching(/^overrides: teacher\.checkpoint: .*without "\.\." segments/),
    });
  });

  it('refuses configs that name a file elsewhere, each key once, from the source it is given', () => {
    const inside = { ...DEFAULT_CONFIG, teacher: { ...DEFAULT_CONFIG.teacher, checkpoint: 'teachers/shell' } };
    const elsewhere = { ...DEFAULT_CONFIG, teacher: { ...DEFAULT_CONFIG.teacher, checkpoint: '/etc/x' } };
    expect(() => assertFetchable([inside, inside], 'queue')).not.toThrow();
    expect(() => assertFetchable([inside, elsewhere, elsewhere], 'queue')).toThrow(
      /^queue: teacher\.checkpoint: expected a relative path inside the app, e\.g\. teachers\/shell, not an absolute path \(got "\/etc\/x"\)$/,
    );
  });
});
