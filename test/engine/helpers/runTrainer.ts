// Runs the experiment trainer on the active backend and collects every event it emits: the one way the trainer
// tests start a run (the trainer's variables are engine-global, so it is always disposed, also after a failure).
import type { ExperimentConfig } from '../../../src/core/experiment/config';
import { createEnvFor } from '../../../src/core/experiment/envFactory';
import type { RunSummary } from '../../../src/core/experiment/summary';
import { MemoryCheckpointStorage } from '../../../src/engine/trainer/checkpoint';
import { createEnginePort } from '../../../src/engine/trainer/engineAdapter';
import type { TrainerEvent } from '../../../src/engine/trainer/events';
import { Trainer, type TrainerOptions } from '../../../src/engine/trainer/trainer';

export interface TrainerRun {
  summary: RunSummary;
  events: TrainerEvent[];
  storage: MemoryCheckpointStorage;
}

export async function runTrainer(
  config: ExperimentConfig,
  extra: Partial<TrainerOptions> = {},
  storage = new MemoryCheckpointStorage(),
): Promise<TrainerRun> {
  const env = createEnvFor(config);
  const events: TrainerEvent[] = [];
  const trainer = new Trainer({
    config,
    env,
    engine: createEnginePort(env),
    storage,
    onEvent: (e) => events.push(e),
    ...extra,
  });
  try {
    return { summary: await trainer.run(), events, storage };
  } finally {
    trainer.dispose();
  }
}
