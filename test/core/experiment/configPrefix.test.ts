import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/core/experiment/config';
import { CONFIG_KEY_STAGES, forkPointOf, prefixDiff, prefixKeyOf } from '../../../src/core/experiment/configPrefix';
import { configKeyTable, DEFAULT_CONFIG } from '../../../src/core/experiment/configSchema';

const cfg = (tree: unknown) => resolveConfig(tree, DEFAULT_CONFIG);

describe('the config prefix', () => {
  it('classifies every leaf key of the schema, and nothing else', () => {
    // a new schema key fails here until it is declared prefix or student-stage in configPrefix.ts
    expect(Object.keys(CONFIG_KEY_STAGES).sort()).toEqual(
      configKeyTable()
        .map((r) => r.key)
        .sort(),
    );
  });

  it('is shared by two configs that differ only in a gate key', () => {
    const a = cfg({ student: { gate: { competenceThreshold: 0.9 } } });
    const b = cfg({ student: { gate: { competenceThreshold: 0 } } });
    expect(prefixKeyOf(a)).toBe(prefixKeyOf(b));
    expect(prefixDiff(a, b)).toEqual([]);
  });

  it('is shared across the student-stage arms of an ablation: schedule never or fixed:N, λ_opd, budget, name', () => {
    const base = prefixKeyOf(DEFAULT_CONFIG);
    for (const tree of [
      { student: { schedule: 'never' } },
      { student: { schedule: 'fixed:30' } },
      { student: { lambdaOpd: 1, estimator: 'full', steps: 400, grpo: { learningRate: 5e-4 } } },
      { name: 'another-arm', evaluation: { passN: 4, passK: [1, 4] } },
    ])
      expect(prefixKeyOf(cfg(tree)), JSON.stringify(tree)).toBe(base);
  });

  it('differs when an SFT key differs, and names that key', () => {
    const a = cfg({ sft: { lambdaObs: 1 } });
    const b = cfg({ sft: { lambdaObs: 0 } });
    expect(prefixKeyOf(a)).not.toBe(prefixKeyOf(b));
    expect(prefixDiff(a, b)).toEqual(['sft.lambdaObs: 1 ≠ 0']);
  });

  it("differs for the seed, the teacher's S_T measurement and schedule none, which skips the teacher stage", () => {
    const base = prefixKeyOf(DEFAULT_CONFIG);
    expect(prefixKeyOf(cfg({ seed: 1 }))).not.toBe(base);
    expect(prefixKeyOf(cfg({ student: { validationTemperature: 1 } }))).not.toBe(base);
    const none = cfg({ student: { schedule: 'none' } });
    expect(prefixKeyOf(none)).not.toBe(base);
    expect(prefixDiff(DEFAULT_CONFIG, none)).toEqual([
      'student.schedule: adaptive ≠ none (none skips the teacher stage)',
    ]);
  });

  it('forks before the student stage, or after SFT when the teacher stage is skipped', () => {
    expect(forkPointOf(DEFAULT_CONFIG)).toEqual({ stage: 'student', step: 0 });
    expect(forkPointOf(cfg({ student: { schedule: 'none' } }))).toEqual({ stage: 'teacher', step: 0 });
  });
});
