// The experiment configuration: one typed, validated object that fully determines a run (with the seed).
// Pure TypeScript (zod only), shared by the CLI and the browser. Every field has a typed default in
// DEFAULT_CONFIG; a user config is a partial tree merged over the defaults, and any key that is not in the
// defaults is rejected with the list of valid keys at that level.
import { z } from 'zod';
import { ConfigError } from '../errors';

/** λ_opd schedules of METHODS.md §4 as config strings: adaptive | never | none | fixed:N | linear:N | alignment-only | competence-only */
export const SCHEDULE_PATTERN = /^(adaptive|never|none|alignment-only|competence-only|fixed:[1-9]\d*|linear:[1-9]\d*)$/;
export const SCHEDULE_NAMES = [
  'adaptive',
  'never',
  'none',
  'fixed:N',
  'linear:N',
  'alignment-only',
  'competence-only',
] as const;
export const ENV_CHOICES = ['shell', 'house', 'shop'] as const;
/** scripted demonstrators of the SFT stage (src/core/env/microEnv.ts BaselineName, without `random`) */
export const DEMONSTRATOR_CHOICES = ['explorer', 'skillFollower', 'expert'] as const;
export const BACKEND_CHOICES = ['cpu', 'wasm', 'webgpu', 'webgl'] as const;
export const ESTIMATOR_CHOICES = ['k3', 'full', 'naive'] as const;
export const ADVANTAGE_CHOICES = ['group', 'batch', 'none'] as const;
export const AGGREGATION_CHOICES = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum'] as const;
/** the metric the gate's validation score (and S_T) is measured with */
export const VALIDATION_METRIC_CHOICES = ['success_rate', 'reward_mean'] as const;

const finite = () => z.number().refine(Number.isFinite, { message: 'expected a finite number' });
const nonNeg = () => finite().refine((v) => v >= 0, { message: 'expected a number ≥ 0' });
const positive = () => finite().refine((v) => v > 0, { message: 'expected a number > 0' });
const count = () => z.number().int({ message: 'expected an integer' }).min(0, { message: 'expected an integer ≥ 0' });
const posInt = () => z.number().int({ message: 'expected an integer' }).min(1, { message: 'expected an integer ≥ 1' });
const unit = () => finite().refine((v) => v >= 0 && v <= 1, { message: 'expected a number in [0, 1]' });

/** GRPO hyper-parameters (METHODS.md §2), shared by the teacher and student stages. */
const grpoSchema = z.strictObject({
  groupSize: z.number().int().min(2, { message: 'expected an integer ≥ 2 (a group needs two samples)' }),
  tasksPerStep: posInt(),
  learningRate: positive(),
  temperature: positive(),
  clipLow: unit(),
  clipHigh: unit(),
  advantage: z.enum(ADVANTAGE_CHOICES),
  aggregation: z.enum(AGGREGATION_CHOICES),
  klBeta: nonNeg(),
  advantageEpsilon: positive(),
});

export const experimentConfigSchema = z.strictObject({
  /** free-form run name, used in folder names and reports */
  name: z.string().min(1),
  /** master seed: model init, sampling, task order */
  seed: count(),
  env: z.strictObject({
    name: z.enum(ENV_CHOICES),
    /** seed of the task universe (kept apart from the run seed so seeds of a sweep share tasks) */
    seed: count(),
    misleadingSkillFraction: unit(),
    invalidActionPenalty: nonNeg(),
    /**
     * negative control (shell only): each task draws its own facts, so there is nothing to internalise and the
     * gate should not retire. Defaults to false when absent (configs saved before the key existed).
     */
    randomFacts: z.boolean().default(false),
  }),
  model: z.strictObject({
    width: posInt(),
    layers: posInt(),
    heads: posInt(),
    mlp: posInt(),
  }),
  demonstrations: z.strictObject({
    /** scripted trajectories on training tasks 0..tasks−1 */
    tasks: count(),
    /**
     * who demonstrates in the student's view. `explorer` (default) probes in an order that never depends on the
     * facts, so the skill-free student cannot read the facts off its demonstrations and must earn them (issue 8);
     * `expert` is the old recipe, whose first action reveals the fact the skill holds. A config saved before the
     * key existed was made with `expert`, so that is what an absent key means (new configs get DEFAULT_CONFIG's).
     */
    studentPolicy: z.enum(DEMONSTRATOR_CHOICES).default('expert'),
    /**
     * who demonstrates in the teacher's (skill) view, shown for a fraction sft.skillViewFraction of SFT samples.
     * `skillFollower` (default) acts on what the skill says, misleading entries included, so the teacher learns
     * to read its skill; with `expert` (the old recipe, and what an absent key means) the action never depends on
     * the skill.
     */
    teacherPolicy: z.enum(DEMONSTRATOR_CHOICES).default('expert'),
  }),
  sft: z.strictObject({
    steps: count(),
    batchSize: posInt(),
    learningRate: positive(),
    /** λ_obs of METHODS.md §1: 0 = ActionSFT, 1 = ActObs */
    lambdaObs: nonNeg(),
    /** gradient geometry cos(g_act, g_obs) every N SFT steps (0 = never) */
    geometryEvery: count(),
    /** held-out expert trajectories for observation CE (base vs SFT policy) */
    heldOutTasks: count(),
    /**
     * fraction of SFT demonstrations shown in the teacher's view (skill segment first), so that the teacher
     * initialised from SFT can read its skill before its GRPO stage. 0 = the papers' recipe (student view only).
     */
    skillViewFraction: unit(),
  }),
  teacher: z.strictObject({
    /** GRPO steps of the skill-conditioned teacher (0 with a checkpoint = use it as is) */
    steps: count(),
    grpo: grpoSchema,
    /** a shipped trained teacher: checkpoint folder relative to public/ (or absolute); "" = train one */
    checkpoint: z.string(),
  }),
  student: z.strictObject({
    steps: count(),
    grpo: grpoSchema,
    schedule: z.string().regex(SCHEDULE_PATTERN, {
      message: `expected one of ${SCHEDULE_NAMES.join(', ')} (N a positive integer)`,
    }),
    /** λ_opd before retirement */
    lambdaOpd: nonNeg(),
    estimator: z.enum(ESTIMATOR_CHOICES),
    validationEvery: posInt(),
    /** validation tasks (validation split, one sample each): the gate's S and also the teacher's S_T */
    validationTasks: posInt(),
    validationMetric: z.enum(VALIDATION_METRIC_CHOICES),
    gate: z.strictObject({
      windowSize: posInt(),
      alignmentThreshold: finite(),
      competenceThreshold: nonNeg(),
      denominatorEpsilon: positive(),
    }),
  }),
  evaluation: z.strictObject({
    testTasks: posInt(),
    /** attempts per task for pass@k (the paper: 16) */
    passN: posInt(),
    passK: z.array(posInt()).min(1),
    /** fixed probe set for KL(π_init ‖ π) */
    probeTasks: posInt(),
    /** temperature control for ActObs-vs-ActionSFT (empty = skip): temperatures tried on the final policy */
    temperatures: z.array(positive()),
    /**
     * temperature matching for ActObs-vs-ActionSFT: the argument-token entropy (nats, probe set, temperature-T
     * distribution) to match; the evaluation finds T by bisection and reports test success there. null = off.
     * A sweep with sweep.matchTemperature sets it per run from the reference arm. Defaults to null when absent
     * (configs saved before the key existed).
     */
    matchArgEntropy: nonNeg().nullable().default(null),
  }),
  runtime: z.strictObject({
    backend: z.enum(BACKEND_CHOICES),
    /** checkpoint every N student/teacher steps (0 = only at stage ends and on interrupt) */
    checkpointEvery: count(),
    /**
     * retention: the newest N periodic/interrupt checkpoints are kept, plus every stage boundary (the
     * "<stage>-000000" checkpoint written when the previous stage ends) and always the latest; 0 = keep every
     * checkpoint (the smoke preset does, so tests can resume from each; a long run with 0 fills the disk).
     * Default 3: a 2,500-step run keeps ~5 checkpoints instead of ~500.
     */
    keepCheckpoints: count(),
  }),
});

export type ExperimentConfig = z.infer<typeof experimentConfigSchema>;
export type GrpoConfig = ExperimentConfig['student']['grpo'];

const DEFAULT_GRPO: GrpoConfig = {
  groupSize: 8,
  tasksPerStep: 8,
  learningRate: 1e-3,
  temperature: 1,
  clipLow: 0.2,
  clipHigh: 0.28,
  advantage: 'group',
  aggregation: 'token-mean',
  klBeta: 0,
  advantageEpsilon: 1e-6,
};

export const DEFAULT_CONFIG: ExperimentConfig = {
  name: 'experiment',
  seed: 0,
  env: { name: 'shell', seed: 1, misleadingSkillFraction: 0.2, invalidActionPenalty: 0.1, randomFacts: false },
  model: { width: 64, layers: 2, heads: 4, mlp: 256 },
  demonstrations: { tasks: 256, studentPolicy: 'explorer', teacherPolicy: 'skillFollower' },
  sft: {
    steps: 60,
    batchSize: 32,
    learningRate: 3e-3,
    lambdaObs: 1,
    geometryEvery: 10,
    heldOutTasks: 32,
    skillViewFraction: 0,
  },
  teacher: { steps: 40, grpo: { ...DEFAULT_GRPO }, checkpoint: '' },
  student: {
    steps: 80,
    grpo: { ...DEFAULT_GRPO },
    schedule: 'adaptive',
    lambdaOpd: 0.5,
    estimator: 'k3',
    validationEvery: 5,
    validationTasks: 64,
    validationMetric: 'success_rate',
    gate: { windowSize: 5, alignmentThreshold: 0, competenceThreshold: 0.9, denominatorEpsilon: 1e-8 },
  },
  evaluation: { testTasks: 64, passN: 16, passK: [1, 4, 16], probeTasks: 16, temperatures: [], matchArgEntropy: null },
  runtime: { backend: 'wasm', checkpointEvery: 10, keepCheckpoints: 3 },
};

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
  'student.steps': 1_000_000,
  'student.grpo.groupSize': 256,
  'student.grpo.tasksPerStep': 1024,
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

/** Validate a full config object (types, ranges, enums) and return it typed. Throws ConfigError. */
export function validateConfig(candidate: unknown, source = 'config'): ExperimentConfig {
  const unknown = unknownKeyMessages(candidate, DEFAULT_CONFIG, '');
  if (unknown.length > 0) throw new ConfigError(unknown, source);
  const parsed = experimentConfigSchema.safeParse(candidate);
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
    value = raw === '' ? NaN : Number(raw);
    if (!Number.isFinite(value as number)) throw new ConfigError([`${key}: expected a number, got "${raw}"`], '--set');
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
