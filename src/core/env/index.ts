// The micro-environments by name. `createEnv('shell', { seed: 3 })`.
import { HouseEnv } from './houseEnv';
import type { MicroEnv } from './microEnv';
import { ShellEnv } from './shellEnv';
import { ShopEnv } from './shopEnv';
import { ENV_NAMES, type EnvName, type EnvOptions } from './types';

export type AnyEnv = ShellEnv | HouseEnv | ShopEnv;

export function createEnv(name: EnvName, options: Partial<EnvOptions> = {}): AnyEnv {
  switch (name) {
    case 'shell':
      return new ShellEnv(options);
    case 'house':
      return new HouseEnv(options);
    case 'shop':
      return new ShopEnv(options);
    default:
      throw new Error(`unknown environment "${String(name)}" (expected ${ENV_NAMES.join(', ')})`);
  }
}

/** the environment as its common base class (for code that treats the three alike) */
export function asMicroEnv(env: AnyEnv): MicroEnv<unknown> {
  return env as unknown as MicroEnv<unknown>;
}

export { HouseEnv, ShellEnv, ShopEnv };
export * from './types';
export { calibrate, formatCalibration, BASELINES, type CalibrationRow } from './calibration';
export { classRuns, renderTrajectory, type ClassRun, type RenderOptions } from './render';
export { classifyStream, studentPrefix, teacherPrefix } from './stream';
export { DEFAULT_ENV_OPTIONS, MicroEnv, type BaselineName, type EnvTask, type EpisodePolicy } from './microEnv';
export { SkillBank, type SkillEntry, type RetrievedSkill } from './skillBank';
export { createVocabulary, MAX_VOCAB_SIZE } from './vocabulary';
