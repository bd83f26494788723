import { describe, expect, it } from 'vitest';
import { GATE_CONFIG_FIELDS, type GateConfig } from '../../src/core/gateConfig';
import { PUBLIC_GATE_CONFIG_KEYS, fromPublicGateConfig, toPublicGateConfig } from '../../src/core/publicGateConfig';

// Six distinct values, so a swapped pair of fields would show.
const lab: GateConfig = {
  lambdaOpd: 0.25,
  teacherPerformance: 0.8,
  windowSize: 7,
  alignmentThreshold: -0.05,
  competenceThreshold: 0.95,
  denominatorEpsilon: 1e-6,
};

describe('publicGateConfig', () => {
  it("writes each field under the public code's key, in its order", () => {
    expect(JSON.stringify(toPublicGateConfig(lab))).toBe(
      '{"opd_coef":0.25,"teacher_performance":0.8,"window_size":7,"alignment_threshold":-0.05,' +
        '"competence_threshold":0.95,"denominator_epsilon":0.000001}',
    );
  });

  it('reads back exactly the config it wrote', () => {
    expect(fromPublicGateConfig(toPublicGateConfig(lab))).toEqual(lab);
  });

  it('names a public key for every lab field, in the same order', () => {
    expect(Object.keys(PUBLIC_GATE_CONFIG_KEYS)).toEqual([...GATE_CONFIG_FIELDS]);
    expect(Object.values(PUBLIC_GATE_CONFIG_KEYS)).toEqual(Object.keys(toPublicGateConfig(lab)));
  });
});
