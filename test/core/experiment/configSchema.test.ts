import { describe, expect, it } from 'vitest';
import { configKeys } from '../../../src/core/experiment/config';
import { configKeyTable, DEFAULT_CONFIG } from '../../../src/core/experiment/configSchema';

describe('the config schema', () => {
  it('gives every leaf key a default, a type and a description, in the order of configKeys', () => {
    const table = configKeyTable();
    expect(table.map((r) => r.key)).toEqual(configKeys());
    for (const row of table) {
      expect(row.description.length, row.key).toBeGreaterThan(10);
      expect(row.type.length, row.key).toBeGreaterThan(0);
    }
    const byKey = new Map(table.map((r) => [r.key, r]));
    expect(byKey.get('student.gate.windowSize')).toMatchObject({ type: 'integer ≥ 1', default: 5 });
    expect(byKey.get('runtime.backend')).toMatchObject({ type: 'cpu | wasm | webgl | webgpu', default: 'wasm' });
    expect(byKey.get('evaluation.matchArgEntropy')).toMatchObject({ type: 'number ≥ 0 | null', default: null });
    expect(byKey.get('evaluation.passK')?.default).toEqual([1, 4, 16]);
  });

  it('derives DEFAULT_CONFIG from the key defaults, in the key order of the schema', () => {
    expect(configKeys()).toEqual(configKeyTable().map((r) => r.key));
    for (const row of configKeyTable()) {
      const value = row.key.split('.').reduce<unknown>((t, k) => (t as Record<string, unknown>)[k], DEFAULT_CONFIG);
      expect(value, row.key).toEqual(row.default);
    }
    expect(Object.keys(DEFAULT_CONFIG.student)).toEqual([
      'steps',
      'grpo',
      'schedule',
      'lambdaOpd',
      'estimator',
      'distill',
      'validationEvery',
      'validationTasks',
      'validationTemperature',
      'validationMetric',
      'gate',
    ]);
  });
});
