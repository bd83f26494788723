// The environment an experiment config names, built with the config's env options (pure TypeScript). A thin
// adapter: the environments are constructed by the one factory, createEnv in ../env.
import { createEnv } from '../env';
import type { AgentEnv, EnvOptions } from '../env/types';
import type { ExperimentConfig } from './config';

/** The env options an experiment config asks for (randomFacts only when on, as the environments expect). */
function envOptionsOf(env: ExperimentConfig['env']): Partial<EnvOptions> {
  return {
    seed: env.seed,
    misleadingSkillFraction: env.misleadingSkillFraction,
    invalidActionPenalty: env.invalidActionPenalty,
    ...(env.randomFacts ? { randomFacts: true } : {}),
  };
}

export function createEnvFor(cfg: ExperimentConfig): AgentEnv {
  return createEnv(cfg.env.name, envOptionsOf(cfg.env));
}
