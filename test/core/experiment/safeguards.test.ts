// The public recipe's safeguards are on by default with verl's values (verl/trainer/config/actor/actor.yaml and the
// public RetireOPD scripts), for the teacher's GRPO and the student's alike.
import { describe, expect, it } from 'vitest';
import { configKeyTable, DEFAULT_CONFIG, SAVED_CONFIG_FALLBACKS } from '../../../src/core/experiment/configSchema';

const defaultOf = (key: string): unknown => configKeyTable().find((r) => r.key === key)?.default;

describe("the safeguards' defaults are verl's", () => {
  for (const stage of ['teacher', 'student'] as const) {
    it(`${stage}.grpo.gradClip defaults to verl's actor.grad_clip 1.0`, () => {
      expect(defaultOf(`${stage}.grpo.gradClip`)).toBe(1.0);
      expect(DEFAULT_CONFIG[stage].grpo.gradClip).toBe(1.0);
    });
    it(`${stage}.grpo.clipRatioC defaults to verl's clip_ratio_c 3.0 (dual-clip PPO)`, () => {
      expect(defaultOf(`${stage}.grpo.clipRatioC`)).toBe(3.0);
    });
    it(`${stage}.grpo.clipLow / clipHigh default to verl's clip_ratio_low 0.2 / DAPO's clip_ratio_high 0.28`, () => {
      expect(defaultOf(`${stage}.grpo.clipLow`)).toBe(0.2);
      expect(defaultOf(`${stage}.grpo.clipHigh`)).toBe(0.28);
    });
    it(`${stage}.grpo.epochs defaults to verl's ppo_epochs 1, with 2 mini-batches so the clip can act`, () => {
      expect(defaultOf(`${stage}.grpo.epochs`)).toBe(1);
      expect(defaultOf(`${stage}.grpo.miniBatches`)).toBe(2);
    });
  }

  it("student.validationTemperature defaults to the public scripts' validation temperature 0.4", () => {
    expect(defaultOf('student.validationTemperature')).toBe(0.4);
  });

  it("the in-run teacher's skill-view SFT is off by default (the papers' recipe: the teacher starts from π_init)", () => {
    expect(defaultOf('teacher.sftSteps')).toBe(0);
    expect(configKeyTable().some((r) => r.key === 'sft.skillViewFraction')).toBe(false);
  });

  it('a run saved before the safeguards reads as it ran: no clipping, one update per rollout, validation at 1', () => {
    expect(SAVED_CONFIG_FALLBACKS['student.grpo.gradClip']).toBeNull();
    expect(SAVED_CONFIG_FALLBACKS['student.grpo.clipRatioC']).toBeNull();
    expect(SAVED_CONFIG_FALLBACKS['student.grpo.miniBatches']).toBe(1);
    expect(SAVED_CONFIG_FALLBACKS['student.validationTemperature']).toBe(1);
  });
});
