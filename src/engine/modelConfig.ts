// Typed configuration of the policy transformer, with presets and validation (unknown keys rejected by name), and
// the model an experiment config implies for its environment.
import type { AgentEnv } from '../core/env/types';
import type { ExperimentConfig } from '../core/experiment/config';

export interface ModelConfig {
  /** token ids are in [0, vocabSize) */
  vocabSize: number;
  /** longest sequence the model accepts (positions 0..contextTokens−1) */
  contextTokens: number;
  /** residual stream width d_model */
  width: number;
  layers: number;
  /** attention heads; width must be divisible by heads */
  heads: number;
  /** hidden width of the MLP */
  mlp: number;
  /** output head shares the token-embedding matrix (transposed) */
  tiedHead: boolean;
}

export type ModelPreset = 'tiny' | 'small' | 'base';
const MODEL_PRESET_NAMES: readonly ModelPreset[] = ['tiny', 'small', 'base'];

/**
 * Sizes without vocabulary (that comes from the environment). The default context of 160 tokens fits the teacher:
 * a skill segment plus a ≤ 128-token episode.
 */
const MODEL_PRESETS: Record<ModelPreset, Omit<ModelConfig, 'vocabSize'>> = {
  tiny: { contextTokens: 160, width: 32, layers: 2, heads: 2, mlp: 128, tiedHead: true },
  small: { contextTokens: 160, width: 64, layers: 2, heads: 4, mlp: 256, tiedHead: false },
  base: { contextTokens: 160, width: 128, layers: 4, heads: 4, mlp: 512, tiedHead: false },
};

const KEYS: readonly (keyof ModelConfig)[] = [
  'vocabSize',
  'contextTokens',
  'width',
  'layers',
  'heads',
  'mlp',
  'tiedHead',
];

function positiveInt(cfg: Record<string, unknown>, key: keyof ModelConfig, where: string): number {
  const v = cfg[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
    throw new Error(`${where}.${key} must be a positive integer, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** Checks a complete config; throws naming the field. */
export function validateModelConfig(cfg: unknown, where = 'model'): ModelConfig {
  if (typeof cfg !== 'object' || cfg === null) throw new Error(`${where} must be an object`);
  const rec = cfg as Record<string, unknown>;
  for (const k of Object.keys(rec)) {
    if (!(KEYS as readonly string[]).includes(k)) {
      throw new Error(`${where}: unknown key '${k}' (expected one of ${KEYS.join(', ')})`);
    }
  }
  const out: ModelConfig = {
    vocabSize: positiveInt(rec, 'vocabSize', where),
    contextTokens: positiveInt(rec, 'contextTokens', where),
    width: positiveInt(rec, 'width', where),
    layers: positiveInt(rec, 'layers', where),
    heads: positiveInt(rec, 'heads', where),
    mlp: positiveInt(rec, 'mlp', where),
    tiedHead: rec.tiedHead as boolean,
  };
  if (typeof rec.tiedHead !== 'boolean')
    throw new Error(`${where}.tiedHead must be a boolean, got ${JSON.stringify(rec.tiedHead)}`);
  if (out.width % out.heads !== 0) {
    throw new Error(`${where}.width (${out.width}) must be divisible by ${where}.heads (${out.heads})`);
  }
  return out;
}

/** A preset plus overrides (e.g. the environment's vocabSize); unknown keys in overrides are rejected. */
export function makeModelConfig(
  preset: ModelPreset,
  overrides: Partial<ModelConfig> & { vocabSize: number },
): ModelConfig {
  const base = MODEL_PRESETS[preset];
  if (base === undefined)
    throw new Error(`unknown model preset '${String(preset)}' (expected ${MODEL_PRESET_NAMES.join(', ')})`);
  return validateModelConfig({ ...base, ...overrides }, `model(${preset})`);
}

/** Number of scalar parameters. */
export function parameterCount(c: ModelConfig): number {
  const block =
    4 * c.width +
    (c.width * 3 * c.width + 3 * c.width) +
    (c.width * c.width + c.width) +
    (c.width * c.mlp + c.mlp) +
    (c.mlp * c.width + c.width);
  return (
    c.vocabSize * c.width +
    c.contextTokens * c.width +
    c.layers * block +
    2 * c.width +
    (c.tiedHead ? 0 : c.width * c.vocabSize) +
    c.vocabSize
  );
}

/**
 * The policy an experiment trains on its environment: the config's sizes, the environment's vocabulary, and a context
 * long enough for the teacher's view (the skill segment in front of a full episode). Every policy of a run (init,
 * teacher, student) has this shape, and so do shipped teachers.
 */
export function modelConfigFor(cfg: ExperimentConfig, env: AgentEnv): ModelConfig {
  return {
    vocabSize: env.vocab.size,
    contextTokens: env.limits.contextTokens + env.limits.skillTokens,
    width: cfg.model.width,
    layers: cfg.model.layers,
    heads: cfg.model.heads,
    mlp: cfg.model.mlp,
    tiedHead: false,
  };
}
