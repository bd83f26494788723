// Upper bounds and cross-field checks of the experiment config (config.ts CONFIG_LIMITS): refused before any work,
// the message naming the key(s) and the allowed range; prototype names are never keys.
import { describe, expect, it } from 'vitest';
import {
  applyOverrides,
  ConfigError,
  DEFAULT_CONFIG,
  parseOverride,
  resolveConfig,
} from '../../../src/core/experiment/config';
import { loadPreset, PRESET_NAMES } from '../../../src/core/experiment/preset';
import { lookupPreset } from '../../support/presets';

const refused = (sets: string[]): string[] => {
  try {
    applyOverrides(DEFAULT_CONFIG, sets);
  } catch (e) {
    if (e instanceof ConfigError) return e.messages;
    throw e;
  }
  throw new Error(`accepted: ${sets.join(' ')}`);
};

describe('config limits', () => {
  it('every shipped preset is within the limits', () => {
    for (const name of PRESET_NAMES) expect(() => loadPreset(name, lookupPreset)).not.toThrow();
  });

  it('names the key and the allowed range of a value above its limit', () => {
    expect(refused(['model.width=16384'])).toContain('model.width: 16384 is above the limit (allowed: 1 … 1024)');
    expect(refused(['seed=4294967296'])).toEqual(['seed: 4294967296 is above the limit (allowed: 0 … 4294967295)']);
    expect(() => applyOverrides(DEFAULT_CONFIG, ['seed=4294967295'])).not.toThrow();
  });

  it('bounds the model by its block parameters: 2·(4·512² + 2·512·4096) = 10,485,760 is fine, 24 such layers are not', () => {
    expect(() => applyOverrides(DEFAULT_CONFIG, ['model.width=512', 'model.mlp=4096', 'model.heads=8'])).not.toThrow();
    // 24 · (4·1024² + 2·1024·4096) = 24 · 12,582,912 = 301,989,888
    expect(refused(['model.width=1024', 'model.mlp=4096', 'model.heads=8', 'model.layers=24'])).toEqual([
      'model: layers·(4·width² + 2·width·mlp) = 301989888 parameters is above the limit of 25000000 (make model.width, model.layers or model.mlp smaller)',
    ]);
  });

  it('bounds the evaluation batch testTasks·passN, and the rollout batch of a GRPO step', () => {
    // the defaults: 64 test tasks; 64·256 = 16,384 is the largest allowed
    expect(() => applyOverrides(DEFAULT_CONFIG, ['evaluation.passN=256'])).not.toThrow();
    expect(refused(['evaluation.passN=257'])).toEqual([
      'evaluation: testTasks·passN = 64·257 = 16448 samples is above the limit of 16384 (lower evaluation.passN or evaluation.testTasks)',
    ]);
    expect(refused(['student.grpo.groupSize=256', 'student.grpo.tasksPerStep=128'])).toEqual([
      'student.grpo: groupSize·tasksPerStep = 32768 sequences per step is above the limit of 16384',
    ]);
  });

  it('refuses SFT without demonstrations, and temperatures outside 0.01 … 100', () => {
    expect(refused(['demonstrations.tasks=0'])).toEqual([
      'demonstrations.tasks: 0 demonstrations cannot feed sft.steps=60 (allowed: demonstrations.tasks ≥ 1, or sft.steps=0)',
    ]);
    expect(() => applyOverrides(DEFAULT_CONFIG, ['demonstrations.tasks=0', 'sft.steps=0'])).not.toThrow();
    expect(refused(['evaluation.temperatures=[0.001]'])).toEqual([
      'evaluation.temperatures: 0.001 is outside 0.01 … 100',
    ]);
    expect(refused(['teacher.grpo.temperature=1000'])).toEqual([
      'teacher.grpo.temperature: 1000 is outside 0.01 … 100',
    ]);
  });
});

describe('prototype names are never keys', () => {
  it('refuses them in --set, at any depth', () => {
    for (const key of [
      '__proto__',
      '__proto__.seed',
      'constructor',
      'model.constructor',
      'student.prototype',
      'toString',
    ])
      expect(() => parseOverride(`${key}=1`), key).toThrow(ConfigError);
  });

  it('refuses an own "__proto__" key of a parsed config file instead of merging it into the prototype', () => {
    const raw = JSON.parse('{"__proto__": {"seed": 5}, "model": {"constructor": {"x": 1}}}') as unknown;
    expect(() => resolveConfig(raw)).toThrow(/key "__proto__" is not allowed.*key "model\.constructor" is not allowed/);
    expect(({} as { seed?: number }).seed).toBeUndefined();
  });
});
