// The environment an experiment config names, built with the config's env options (pure TypeScript).
import { HouseEnv } from '../env/houseEnv';
import { ShellEnv } from '../env/shellEnv';
import { ShopEnv } from '../env/shopEnv';
import type { AgentEnv, EnvOptions } from '../env/types';
import type { ExperimentConfig } from './config';

type EnvCtor = new (options: Partial<EnvOptions>) => AgentEnv;

/** Environments available in this build, by config name. */
export const ENV_CONSTRUCTORS: Partial<Record<ExperimentConfig['env']['name'], EnvCtor>> = {
  shell: ShellEnv,
  house: HouseEnv,
  shop: ShopEnv,
};

export function createEnvFor(cfg: ExperimentConfig): AgentEnv {
  const Ctor = ENV_CONSTRUCTORS[cfg.env.name];
  if (!Ctor) {
    throw new Error(
      `env.name: environment "${cfg.env.name}" is not available in this build (available: ${Object.keys(ENV_CONSTRUCTORS).join(', ')})`,
    );
  }
  return new Ctor({
    seed: cfg.env.seed,
    misleadingSkillFraction: cfg.env.misleadingSkillFraction,
    invalidActionPenalty: cfg.env.invalidActionPenalty,
    ...(cfg.env.randomFacts ? { randomFacts: true } : {}),
  });
}
