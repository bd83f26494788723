// The student and teacher stages' step lines carry time/readbacks: the tensor reads to the host that the step made
// (rollout, update, validation), the count that tells how often the host waited for the device.
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../../src/core/experiment/config';
import { createEnvFor } from '../../../../src/core/experiment/envFactory';
import { loadPreset } from '../../../../src/core/experiment/preset';
import { METRIC } from '../../../../src/core/runLog/metricKeys';
import { initBackend } from '../../../../src/engine/backend';
import { createEnginePort } from '../../../../src/engine/trainer/engineAdapter';
import type { TrainerEvent } from '../../../../src/engine/trainer/events';
import { Trainer } from '../../../../src/engine/trainer/trainer';
import { lookupPreset } from '../../../support/presets';

describe('step lines of the GRPO stages', () => {
  const events: TrainerEvent[] = [];
  beforeAll(async () => {
    await initBackend('cpu');
    const config = resolveConfig(
      {
        sft: { steps: 1 },
        teacher: { steps: 1 },
        student: { steps: 2, validationEvery: 2 },
        evaluation: { temperatures: [], testTasks: 2 },
        runtime: { checkpointEvery: 0 },
      },
      loadPreset('smoke', lookupPreset).config,
    );
    const env = createEnvFor(config);
    const trainer = new Trainer({
      config,
      env,
      engine: createEnginePort(env),
      storage: null,
      onEvent: (e) => events.push(e),
    });
    try {
      await trainer.run();
    } finally {
      trainer.dispose();
    }
  }, 120_000);

  it('carry the readbacks of the step, at least one per decode step on cpu, more on a validation step', () => {
    const lines = events.flatMap((e) => (e.type === 'step' && e.stage !== 'sft' ? [e] : []));
    expect(lines.map((e) => `${e.stage}:${e.step}`)).toEqual(['teacher:1', 'student:1', 'student:2']);
    const reads = lines.map((e) => e.metrics[METRIC.timeReadbacks] as number);
    for (const n of reads) expect(Number.isInteger(n) && n > 0).toBe(true);
    // host sampling reads the logits once per decode step: a rollout alone has several turns of several tokens
    expect(reads[1]).toBeGreaterThanOrEqual(4);
    // step 2 also runs the validation rollout
    expect(reads[2]).toBeGreaterThan(reads[1] as number);
  });
});
