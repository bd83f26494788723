// The experiment configuration: one typed, validated object that fully determines a run (with the seed).
// Pure TypeScript (zod only), shared by the CLI and the browser. The shape, every key's default and its meaning are
// declared once in ./configSchema.ts (DEFAULT_CONFIG is derived there). A user config is a partial tree merged over
// the defaults, and any key that is not in the schema is rejected with the list of valid keys at that level.
import type { z } from 'zod';
import { ConfigError } from '../errors';
import { DEFAULT_CONFIG, REMOVED_CONFIG_KEYS, savedConfigSchema, type ExperimentConfig } from './configSchema';
import { parseDecimal, parseSeed } from './numberText';

// The config's type and defaults, re-exported for their many importers.
export { DEFAULT_CONFIG, type ExperimentConfig, type GrpoConfig } from './configSchema';

// ConfigError lives with the other user errors (core/errors.ts); re-exported here for its many importers.
export { ConfigError };

/** Prototype names: never config keys, refused wherever a key is read (a JSON "__proto__" is an own key). */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Tree = { [k: string]: unknown };
const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every leaf key of the defaults, dotted ("student.gate.windowSize"), in declaration order. */
export function configKeys(tree: unknown = DEFAULT_CONFIG, prefix = ''): string[] {
  if (!isTree(tree)) return [prefix];
  return Object.entries(tree).flatMap(([k, v]) => configKeys(v, prefix ? `${prefix}.${k}` : k));
}

/** Unknown keys of a partial config against the defaults tree, each with the valid keys at its level. */
function unknownKeyMessages(partial: unknown, defaults: unknown, prefix: string): string[] {
  if (!isTree(partial) || !isTree(defaults)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(partial)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (FORBIDDEN_KEYS.has(k)) {
      out.push(`key "${path}" is not allowed (a JavaScript prototype name, never a config key)`);
    } else if (Object.hasOwn(REMOVED_CONFIG_KEYS, path)) {
      out.push(`key "${path}" ${REMOVED_CONFIG_KEYS[path]}`);
    } else if (!Object.hasOwn(defaults, k)) {
      out.push(
        `unknown key "${path}" (valid keys${prefix ? ` under "${prefix}"` : ''}: ${Object.keys(defaults).join(', ')})`,
      );
    } else if (isTree(defaults[k])) {
      if (!isTree(v)) out.push(`${path}: expected an object with keys ${Object.keys(defaults[k] as Tree).join(', ')}`);
      else out.push(...unknownKeyMessages(v, defaults[k], path));
    }
  }
  return out;
}

/**
 * How deep a config value may nest (objects and arrays): the schema's deepest key is 3 levels down and its values
 * are flat arrays, so 32 is far beyond any config; deeper input (5,000 levels of `{"a":…}`) would overflow the
 * stack of the recursive merge and checks below, so it is refused first, naming the field path.
 */
export const MAX_CONFIG_DEPTH = 32;

/**
 * Refuse a value nesting deeper than MAX_CONFIG_DEPTH, naming the dotted path (first levels) where it does. Walks
 * with an explicit stack (no recursion, so no stack overflow however deep). `prefix` is the key the value sits at.
 */
export function checkConfigNesting(value: unknown, source: string, prefix = ''): void {
  const stack: { v: unknown; path: string[] }[] = [{ v: value, path: prefix ? prefix.split('.') : [] }];
  const base = stack[0]!.path.length;
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (path.length - base >= MAX_CONFIG_DEPTH) {
      const shown = path.slice(0, 6).join('.');
      throw new ConfigError(
        [
          `${shown.slice(0, 120)}${path.length > 6 ? '.…' : ''}: nested deeper than ${MAX_CONFIG_DEPTH} levels (a config value nests at most ${MAX_CONFIG_DEPTH} objects or arrays deep)`,
        ],
        source,
      );
    }
    for (const [k, child] of Object.entries(v)) stack.push({ v: child, path: [...path, k] });
  }
}

function deepMerge<T>(base: T, over: unknown): T {
  if (!isTree(base) || !isTree(over)) return (over === undefined ? structuredClone(base) : structuredClone(over)) as T;
  const out: Tree = structuredClone(base);
  for (const [k, v] of Object.entries(over)) {
    if (FORBIDDEN_KEYS.has(k)) throw new ConfigError([`key "${k}" is not allowed`]);
    out[k] = Object.hasOwn(out, k) ? deepMerge(out[k], v) : v;
  }
  return out as T;
}

/** A value as a short JSON quote for messages (at most ~60 characters). */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function getPath(tree: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = tree;
  for (const p of path)
    cur =
      (isTree(cur) || Array.isArray(cur)) && Object.hasOwn(cur, p)
        ? (cur as Record<PropertyKey, unknown>)[p]
        : undefined;
  return cur;
}

/**
 * Upper bounds (inclusive) of the config's counts and sizes: what runs in a browser tab or a laptop's memory in
 * reasonable time. Checked before any work, so a typo (width=16384, passN=100000) is refused at once rather than
 * failing hours later. Seeds are hashed as unsigned 32-bit integers, so larger ones would alias.
 */
export const CONFIG_LIMITS: Readonly<Record<string, number>> = {
  seed: 0xffffffff,
  'env.seed': 0xffffffff,
  'model.width': 1024,
  'model.layers': 24,
  'model.heads': 64,
  'model.mlp': 4096,
  'demonstrations.tasks': 100_000,
  'sft.steps': 1_000_000,
  'sft.batchSize': 4096,
  'sft.geometryEvery': 1_000_000,
  'sft.heldOutTasks': 4096,
  'teacher.steps': 1_000_000,
  'teacher.grpo.groupSize': 256,
  'teacher.grpo.tasksPerStep': 1024,
  'teacher.grpo.miniBatches': 1024,
  'teacher.grpo.epochs': 100,
  'teacher.sftSteps': 1_000_000,
  'student.steps': 1_000_000,
  'student.grpo.groupSize': 256,
  'student.grpo.tasksPerStep': 1024,
  'student.grpo.miniBatches': 1024,
  'student.grpo.epochs': 100,
  'student.validationEvery': 1_000_000,
  'student.validationTasks': 4096,
  'student.gate.windowSize': 10_000,
  'evaluation.testTasks': 4096,
  'evaluation.passN': 1024,
  'evaluation.probeTasks': 4096,
  'runtime.checkpointEvery': 1_000_000,
  'runtime.keepCheckpoints': 1000,
};
/** transformer-block parameters layers·(4·width² + 2·width·mlp): ~100 MB of float32 per model copy */
export const MAX_BLOCK_PARAMETERS = 25_000_000;
/** sequences sampled at once (tasks × samples): one rollout batch */
export const MAX_ROLLOUT_BATCH = 16_384;
/** sampling temperatures (GRPO and evaluation) */
export const TEMPERATURE_RANGE = [0.01, 100] as const;
export const MAX_TEMPERATURES = 16;

/** Upper bounds and cross-field checks, each message naming the key(s) and the allowed range. */
function limitMessages(cfg: ExperimentConfig): string[] {
  const out: string[] = [];
  for (const [key, max] of Object.entries(CONFIG_LIMITS)) {
    const v = getPath(cfg, key.split('.')) as number;
    if (v > max) out.push(`${key}: ${v} is above the limit (allowed: ${key.endsWith('seed') ? 0 : 1} … ${max})`);
  }
  const m = cfg.model;
  const block = m.layers * (4 * m.width * m.width + 2 * m.width * m.mlp);
  if (block > MAX_BLOCK_PARAMETERS)
    out.push(
      `model: layers·(4·width² + 2·width·mlp) = ${block} parameters is above the limit of ${MAX_BLOCK_PARAMETERS} (make model.width, model.layers or model.mlp smaller)`,
    );
  for (const stage of ['teacher', 'student'] as const) {
    const g = cfg[stage].grpo;
    if (g.groupSize * g.tasksPerStep > MAX_ROLLOUT_BATCH)
      out.push(
        `${stage}.grpo: groupSize·tasksPerStep = ${g.groupSize * g.tasksPerStep} sequences per step is above the limit of ${MAX_ROLLOUT_BATCH}`,
      );
    if (g.temperature < TEMPERATURE_RANGE[0] || g.temperature > TEMPERATURE_RANGE[1])
      out.push(
        `${stage}.grpo.temperature: ${g.temperature} is outside ${TEMPERATURE_RANGE[0]} … ${TEMPERATURE_RANGE[1]}`,
      );
  }
  const vt = cfg.student.validationTemperature;
  if (vt < TEMPERATURE_RANGE[0] || vt > TEMPERATURE_RANGE[1])
    out.push(`student.validationTemperature: ${vt} is outside ${TEMPERATURE_RANGE[0]} … ${TEMPERATURE_RANGE[1]}`);
  const ev = cfg.evaluation;
  if (ev.testTasks * ev.passN > MAX_ROLLOUT_BATCH)
    out.push(
      `evaluation: testTasks·passN = ${ev.testTasks}·${ev.passN} = ${ev.testTasks * ev.passN} samples is above the limit of ${MAX_ROLLOUT_BATCH} (lower evaluation.passN or evaluation.testTasks)`,
    );
  if (ev.temperatures.length > MAX_TEMPERATURES)
    out.push(`evaluation.temperatures: ${ev.temperatures.length} temperatures, at most ${MAX_TEMPERATURES} allowed`);
  for (const t of ev.temperatures)
    if (t < TEMPERATURE_RANGE[0] || t > TEMPERATURE_RANGE[1])
      out.push(`evaluation.temperatures: ${t} is outside ${TEMPERATURE_RANGE[0]} … ${TEMPERATURE_RANGE[1]}`);
  if (ev.passK.length > MAX_TEMPERATURES)
    out.push(`evaluation.passK: ${ev.passK.length} values, at most ${MAX_TEMPERATURES} allowed`);
  if (cfg.sft.steps > 0 && cfg.demonstrations.tasks === 0)
    out.push(
      `demonstrations.tasks: 0 demonstrations cannot feed sft.steps=${cfg.sft.steps} (allowed: demonstrations.tasks ≥ 1, or sft.steps=0)`,
    );
  return out;
}

/**
 * Validate a full config object (types, ranges, enums) and return it typed. Every key must be present except those
 * of SAVED_CONFIG_FALLBACKS (a saved config from before they existed). Throws ConfigError.
 */
export function validateConfig(candidate: unknown, source = 'config'): ExperimentConfig {
  checkConfigNesting(candidate, source);
  const unknown = unknownKeyMessages(candidate, DEFAULT_CONFIG, '');
  if (unknown.length > 0) throw new ConfigError(unknown, source);
  const parsed = savedConfigSchema.safeParse(candidate) as z.ZodSafeParseResult<ExperimentConfig>;
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((iss) => {
        const path = iss.path.map(String).join('.');
        return `${path}: ${iss.message} (got ${describe(getPath(candidate, iss.path))})`;
      }),
      source,
    );
  }
  const cfg = parsed.data;
  const extra = limitMessages(cfg);
  if (cfg.model.width % cfg.model.heads !== 0)
    extra.push(`model.heads: ${cfg.model.heads} must divide model.width ${cfg.model.width}`);
  for (const k of cfg.evaluation.passK) {
    if (k > cfg.evaluation.passN)
      extra.push(`evaluation.passK: k=${k} exceeds evaluation.passN=${cfg.evaluation.passN}`);
  }
  if (cfg.student.grpo.clipLow >= 1) extra.push('student.grpo.clipLow: must be < 1');
  if (cfg.teacher.grpo.clipLow >= 1) extra.push('teacher.grpo.clipLow: must be < 1');
  const d = cfg.student.distill;
  if (d.studentFraction !== 1 && d.form !== 'gkd-jsd')
    extra.push(
      `student.distill.studentFraction: expected 1 with form '${d.form}', got ${d.studentFraction} (only gkd-jsd samples part of its batches from the teacher)`,
    );
  if (extra.length > 0) throw new ConfigError(extra, source);
  return cfg;
}

/** Merge a partial config tree over the defaults (or a given base) and validate. Throws ConfigError. */
export function resolveConfig(
  partial: unknown,
  base: ExperimentConfig = DEFAULT_CONFIG,
  source = 'config',
): ExperimentConfig {
  if (partial !== undefined && !isTree(partial)) throw new ConfigError(['expected a JSON object'], source);
  checkConfigNesting(partial, source);
  const unknown = unknownKeyMessages(partial, DEFAULT_CONFIG, '');
  if (unknown.length > 0) throw new ConfigError(unknown, source);
  return validateConfig(deepMerge(base, partial), source);
}

/**
 * Parse `key=value` (dotted key) into a one-leaf partial tree. The value is read according to the type of the
 * default at that key: numbers, booleans, strings as written, arrays/objects as JSON.
 */
export function parseOverride(assignment: string): Tree {
  const eq = assignment.indexOf('=');
  if (eq <= 0)
    throw new ConfigError([`--set "${assignment}": expected key=value, e.g. student.lambdaOpd=0.2`], '--set');
  const key = assignment.slice(0, eq).trim();
  const raw = assignment.slice(eq + 1).trim();
  const parts = key.split('.');
  let def: unknown = DEFAULT_CONFIG;
  const walked: string[] = [];
  for (const p of parts) {
    if (FORBIDDEN_KEYS.has(p))
      throw new ConfigError(
        [`key "${key.slice(0, 60)}": "${p}" is not allowed (a JavaScript prototype name, never a config key)`],
        '--set',
      );
    if (!isTree(def) || !Object.hasOwn(def, p)) {
      const level = isTree(def) ? Object.keys(def) : [];
      const where = walked.length ? ` under "${walked.join('.')}"` : '';
      throw new ConfigError(
        [
          `unknown key "${key}"${level.length ? ` (valid keys${where}: ${level.join(', ')})` : ` ("${walked.join('.')}" is not an object)`}`,
        ],
        '--set',
      );
    }
    def = def[p];
    walked.push(p);
  }
  let value: unknown;
  if (typeof def === 'number') {
    // seeds: decimal digits only; other numbers: decimal (numberText.ts says why)
    const read = parts[parts.length - 1] === 'seed' ? parseSeed(raw) : parseDecimal(raw);
    if ('error' in read) throw new ConfigError([`${key}: ${read.error}`], '--set');
    value = read.value;
  } else if (typeof def === 'boolean') {
    if (raw !== 'true' && raw !== 'false')
      throw new ConfigError([`${key}: expected true or false, got "${raw}"`], '--set');
    value = raw === 'true';
  } else if (typeof def === 'string') {
    value = raw;
  } else {
    try {
      value = JSON.parse(raw) as Json;
    } catch {
      throw new ConfigError([`${key}: expected JSON (e.g. [1,4,16]), got "${raw}"`], '--set');
    }
    checkConfigNesting(value, '--set', key);
  }
  const tree: Tree = {};
  let cur = tree;
  parts.forEach((p, i) => {
    if (i === parts.length - 1) cur[p] = value;
    else cur = cur[p] = {} as Tree;
  });
  return tree;
}

/** Apply `--set` assignments (later ones win) to a config, then validate the result once. */
export function applyOverrides(cfg: ExperimentConfig, assignments: readonly string[]): ExperimentConfig {
  let merged: Tree = {};
  for (const a of assignments) merged = deepMerge(merged, parseOverride(a));
  return resolveConfig(merged, cfg, '--set');
}

/** Dotted keys whose values differ between two configs (for refusing a resume into another config). */
export function configDiff(a: unknown, b: unknown, prefix = ''): string[] {
  if (isTree(a) && isTree(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => configDiff(a[k], b[k], prefix ? `${prefix}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [`${prefix}: ${describe(a)} ≠ ${describe(b)}`];
}

/** Read a dotted key of a config (for sweep axes and tables). */
export function getConfigValue(cfg: ExperimentConfig, key: string): unknown {
  return getPath(cfg, key.split('.'));
}
