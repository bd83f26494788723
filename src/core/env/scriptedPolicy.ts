// Scripted per-episode policies written as generators (the environments' explorers and skill followers).
import type { EpisodePolicy } from './microEnv';

/**
 * A scripted policy written as a generator: it yields actions (words) and receives the observation words of each.
 * When the script ends it keeps repeating its last action (the episode is normally over by then).
 */
export function scriptedPolicy(script: () => Generator<string[], void, readonly string[]>): EpisodePolicy {
  let gen: Generator<string[], void, readonly string[]> | null = null;
  let last: string[] = [];
  return {
    act(observation) {
      let r: IteratorResult<string[], void>;
      if (gen === null) {
        gen = script();
        r = gen.next(observation);
      } else {
        r = gen.next(observation);
      }
      if (!r.done) last = r.value;
      return last;
    },
  };
}
