import { describe, expect, it } from 'vitest';
import { miniBatchPlan, updatesPerStep } from '../../src/core/miniBatches';

describe("PPO mini-batches over one rollout (verl's ppo_mini_batch_size / ppo_epochs)", () => {
  const cases = [
    { sequences: 64, groupSize: 8, miniBatches: 2, epochs: 1 },
    { sequences: 64, groupSize: 8, miniBatches: 3, epochs: 2 },
    { sequences: 40, groupSize: 4, miniBatches: 4, epochs: 3 },
    { sequences: 16, groupSize: 4, miniBatches: 8, epochs: 1 }, // more mini-batches than groups
    { sequences: 12, groupSize: 4, miniBatches: 1, epochs: 1 },
  ];
  for (const c of cases) {
    it(`${c.sequences} sequences in groups of ${c.groupSize}, ${c.miniBatches} mini-batches × ${c.epochs} epochs: every sequence exactly once per epoch`, () => {
      const plan = miniBatchPlan(c.sequences, c.groupSize, c.miniBatches, c.epochs);
      const m = Math.min(c.miniBatches, c.sequences / c.groupSize);
      expect(plan.miniBatches).toBe(m);
      expect(plan.updates).toHaveLength(m * c.epochs);
      for (let e = 0; e < c.epochs; e++) {
        const epoch = plan.updates.slice(e * m, (e + 1) * m);
        const seen = epoch.flat().sort((x, y) => x - y);
        expect(seen).toEqual(Array.from({ length: c.sequences }, (_, i) => i));
        for (const rows of epoch) {
          // whole groups: a group's samples stay together (its advantages are relative within it)
          expect(rows.length % c.groupSize).toBe(0);
          for (let i = 0; i < rows.length; i += c.groupSize) expect(rows[i]! % c.groupSize).toBe(0);
        }
        // sizes differ by at most one group
        const sizes = epoch.map((r) => r.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(c.groupSize);
      }
    });
  }

  it('2 mini-batches of the default 8 tasks × 8 samples are rows 0–31 then 32–63', () => {
    const { updates } = miniBatchPlan(64, 8, 2, 1);
    expect(updates[0]).toEqual(Array.from({ length: 32 }, (_, i) => i));
    expect(updates[1]).toEqual(Array.from({ length: 32 }, (_, i) => 32 + i));
  });

  it('rejects a batch that is not whole groups, naming the settings', () => {
    expect(() => miniBatchPlan(10, 4, 2, 1)).toThrow(/groupSize/);
    expect(() => miniBatchPlan(16, 4, 0, 1)).toThrow(/grpo.miniBatches/);
    expect(() => miniBatchPlan(16, 4, 2, 0)).toThrow(/grpo.epochs/);
  });

  it("counts the optimizer updates of a step as the plan makes them (a checkpoint checks Adam's step count by it)", () => {
    for (const [tasksPerStep, miniBatches, epochs] of [
      [8, 2, 1],
      [4, 8, 2],
      [3, 2, 3],
    ] as const) {
      const plan = miniBatchPlan(tasksPerStep * 4, 4, miniBatches, epochs);
      expect(updatesPerStep({ tasksPerStep, miniBatches, epochs })).toBe(plan.updates.length);
    }
  });
});
