import { describe, expect, it } from 'vitest';
import { loadPreset, PRESET_NAMES } from '../../../src/core/experiment/preset';
import { createEnvFor } from '../../../src/core/experiment/envFactory';
import { modelConfigFor, parameterCount } from '../../../src/engine/modelConfig';
import { populationFootprint, populationRefusal } from '../../../src/engine/trainer/populationMemory';
import { lookupPreset } from '../../support/presets';

const retireShell = () => loadPreset('retire-shell', lookupPreset, PRESET_NAMES).config;

describe('populationFootprint', () => {
  it('counts each rider as two float32 host copies of the weights and Adam m and v, on top of the leader', () => {
    const config = retireShell();
    const parameters = parameterCount(modelConfigFor(config, createEnvFor(config)));
    const one = populationFootprint(config, 1);
    const three = populationFootprint(config, 3);
    expect(one.parameters).toBe(parameters);
    expect(three.riderBytes).toBe(2 * 3 * 4 * parameters);
    expect(one.totalBytes).toBe(one.leaderBytes);
    expect(three.totalBytes).toBe(one.leaderBytes + 2 * three.riderBytes);
    // the leader holds at least its weights, gradients, Adam m and v, and the teacher's weights
    expect(one.leaderBytes).toBeGreaterThanOrEqual(5 * 4 * parameters);
  });

  it('refuses a population size below 1', () => {
    expect(() => populationFootprint(retireShell(), 0)).toThrow('population size: expected an integer ≥ 1, got 0');
  });
});

describe('populationRefusal', () => {
  it('lets a population that fits the budget exactly train, and refuses one more rider with the figures', () => {
    const config = retireShell();
    const f = populationFootprint(config, 3);
    const budget = { bytes: f.totalBytes, source: 'the test allows' };
    expect(populationRefusal(config, 3, budget)).toBeNull();
    const refusal = populationRefusal(config, 4, budget);
    const mib = (b: number) => `${(b / 1048576).toFixed(b < 10 * 1048576 ? 1 : 0)} MiB`;
    expect(refusal).toBe(
      `a population of 4 runs needs about ${mib(f.leaderBytes + 3 * f.riderBytes)} (the leader ${mib(f.leaderBytes)}, ` +
        `each of the 3 riders ${mib(f.riderBytes)}: host copies of ${f.parameters.toLocaleString('en')} parameters, ` +
        `Adam state included), more than the ${mib(f.totalBytes)} the test allows; at most 3 fit — make the ` +
        'population smaller',
    );
  });

  it('says at most 1 fits when not even the leader does', () => {
    expect(populationRefusal(retireShell(), 2, { bytes: 1, source: 'x' })).toContain('at most 1 fit');
  });
});
