// One fingerprint of the environments for a seed, imported by Node tests and, through the Vite dev server, by the
// browser: skill segments, expert streams, the observations of a fixed non-expert action, and the SFT
// demonstrators' streams (explorer, skill follower), tasks 0..9 per split; plus the shell negative control's tasks.
import { ENV_NAMES, SPLITS, createEnv } from '../../src/core/env';
import { hashString } from '../../src/core/rng';

export function envFingerprint(seed: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of ENV_NAMES) {
    const env = createEnv(name, { seed });
    const parts: string[] = [];
    for (const s of SPLITS) {
      const tasks = env.tasks(s, 10);
      const batch = env.createBatch(tasks.length);
      batch.reset(tasks);
      batch.step(tasks.map(() => [env.vocab.actionHeads[0] ?? 0, 4]));
      tasks.forEach((t, i) =>
        parts.push(t.skillTokens.join(','), env.expert(t).tokens.join(','), batch.observation(i).join(',')),
      );
      for (const policy of ['explorer', 'skillFollower'] as const) {
        for (const tr of env.demonstrate(tasks, policy, seed)) parts.push(tr.tokens.join(','));
      }
    }
    out[name] = hashString(parts.join('|'));
  }
  const control = createEnv('shell', { seed, randomFacts: true });
  out['shell-control'] = hashString(
    control
      .tasks('validation', 10)
      .map((t) => `${t.skillTokens.join(',')}:${control.expert(t).tokens.join(',')}`)
      .join('|'),
  );
  return out;
}
