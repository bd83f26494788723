import { describe, expect, it } from 'vitest';
import {
  protocolSeedProblem,
  REPORTING_SEEDS,
  seedsOf,
  TUNING_SEEDS,
  tuningSeedWarning,
} from '../../../src/core/experiment/seedProtocol';

describe('the seed protocol', () => {
  it('tunes on seeds 0–4 and reports on ten fresh seeds 1000–1009', () => {
    expect(TUNING_SEEDS).toEqual([0, 1, 2, 3, 4]);
    expect(REPORTING_SEEDS).toEqual([1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009]);
    expect(TUNING_SEEDS.some((s) => REPORTING_SEEDS.includes(s))).toBe(false);
    expect(seedsOf('reporting')).toBe(REPORTING_SEEDS);
  });

  it('refuses a reporting table built from tuning seeds, naming them', () => {
    expect(protocolSeedProblem('reporting', [1000, 1001, 3])).toMatch(/seed 3 is not held out/);
    expect(protocolSeedProblem('reporting', [0, 1, 2, 3, 4])).toMatch(/seeds 0, 1, 2, 3, 4 are not held out/);
    expect(protocolSeedProblem('reporting', [1000, 1005, 1009])).toBeNull();
  });

  it('refuses seeds outside the set and an empty table', () => {
    expect(protocolSeedProblem('reporting', [1000, 2000])).toMatch(/seed 2000 is not in the reporting set/);
    expect(protocolSeedProblem('tuning', [0, 1000])).toMatch(/seed 1000 is not in the tuning set/);
    expect(protocolSeedProblem('tuning', [])).toBe('no finished runs');
  });

  it('warns the tuning path about reporting seeds only', () => {
    expect(tuningSeedWarning([0, 1, 2])).toBeNull();
    expect(tuningSeedWarning([0, 1003])).toMatch(/^seed 1003 belongs to the held-out reporting set \(1000–1009\)/);
    expect(tuningSeedWarning([1000, 1001])).toMatch(/^seeds 1000, 1001 belong to/);
  });
});
