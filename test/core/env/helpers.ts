// Drive one episode with actions given as words; returns each observation's words (markers dropped) and the batch.
import type { MicroEnv, EnvTask } from '../../../src/core/env/microEnv';

export function play<W>(env: MicroEnv<W>, task: EnvTask<W>, actions: readonly (readonly string[])[]) {
  const batch = env.createBatch(1);
  batch.reset([task]);
  const observations: string[] = [];
  for (const a of actions) {
    batch.step([env.encodeAction(a)]);
    observations.push(env.vocab.decode([...batch.observation(0)].slice(1, -1)));
  }
  return { batch, observations };
}
