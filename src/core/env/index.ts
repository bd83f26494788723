// The micro-environments by name: the one table of environment constructors. `createEnv('shell', { seed: 3 })`.
// (experiment/envFactory.ts only turns an experiment config into these options.)
import { HouseEnv } from './houseEnv';
import type { MicroEnv } from './microEnv';
import { ShellEnv } from './shellEnv';
import { ShopEnv } from './shopEnv';
import type { EnvName, EnvOptions } from './types';

/** Environments available in this build, by name. */
const ENV_CONSTRUCTORS: { readonly [N in EnvName]: new (options: Partial<EnvOptions>) => MicroEnv<unknown> } = {
  shell: ShellEnv,
  house: HouseEnv,
  shop: ShopEnv,
};

/**
 * A new environment, as the common base class (its world type is opaque to callers); `options` are checked
 * (unknown keys and out-of-range values throw, naming the key).
 */
export function createEnv(name: EnvName, options: Partial<EnvOptions> = {}): MicroEnv<unknown> {
  const Ctor = Object.hasOwn(ENV_CONSTRUCTORS, name) ? ENV_CONSTRUCTORS[name] : undefined;
  if (Ctor === undefined) {
    const available = Object.keys(ENV_CONSTRUCTORS).join(', ');
    throw new Error(`env.name: environment "${String(name)}" is not available in this build (available: ${available})`);
  }
  return new Ctor(options);
}

export { HouseEnv, ShellEnv, ShopEnv };
export * from './types';
export { calibrate, formatCalibration, BASELINES, type CalibrationRow } from './calibration';
export { classRuns, renderTrajectory, type ClassRun, type RenderOptions } from './render';
export { classifyStream, studentPrefix, teacherPrefix } from './stream';
export { DEFAULT_ENV_OPTIONS, MicroEnv, type BaselineName, type EnvTask, type EpisodePolicy } from './microEnv';
export { SkillBank, type SkillEntry, type RetrievedSkill } from './skillBank';
export { createVocabulary, MAX_VOCAB_SIZE } from './vocabulary';
