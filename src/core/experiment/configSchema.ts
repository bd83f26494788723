// The experiment config's schema: the one declaration of the config's shape. Every leaf key carries its default
// (`.default`) and what it means, with units and why the default (`.describe`, printed by
// `npm run experiment -- --list-keys`); DEFAULT_CONFIG and the key table are derived from it. The names a key may
// hold (schedules, estimators, backends, …) come from ../methodVocabulary.ts. Merging, validation messages and
// `--set` parsing are in ./config.ts. Pure TypeScript (zod only).
import { z } from 'zod';
import { GATE_DEFAULTS } from '../gateConfig';
import { fileReferenceProblem } from './fileReference';
import {
  BACKEND_NAMES,
  DEMONSTRATORS,
  DISTILL_FORMS,
  ENV_NAMES,
  GRPO_ADVANTAGES,
  GRPO_AGGREGATIONS,
  OPD_ESTIMATORS,
  parseScheduleSpec,
  SCHEDULE_FORMS,
  SCHEDULE_SYNTAX,
  VALIDATION_METRICS,
} from '../methodVocabulary';

/** The value type of each constrained leaf, in words ("integer ≥ 1"), for --list-keys (see configKeyTable). */
const typeLabels = z.registry<{ type: string }>();
const typed = <T extends z.ZodType>(schema: T, type: string): T => {
  typeLabels.add(schema, { type });
  return schema;
};

const finite = () => typed(z.number().refine(Number.isFinite, { message: 'expected a finite number' }), 'number');
const nonNeg = () =>
  typed(
    finite().refine((v) => v >= 0, { message: 'expected a number ≥ 0' }),
    'number ≥ 0',
  );
const positive = () =>
  typed(
    finite().refine((v) => v > 0, { message: 'expected a number > 0' }),
    'number > 0',
  );
const count = () =>
  typed(
    z.number().int({ message: 'expected an integer' }).min(0, { message: 'expected an integer ≥ 0' }),
    'integer ≥ 0',
  );
const posInt = () =>
  typed(
    z.number().int({ message: 'expected an integer' }).min(1, { message: 'expected an integer ≥ 1' }),
    'integer ≥ 1',
  );
const unit = () =>
  typed(
    finite().refine((v) => v >= 0 && v <= 1, { message: 'expected a number in [0, 1]' }),
    'number in [0, 1]',
  );
const isScheduleSpec = (text: string): boolean => {
  try {
    parseScheduleSpec(text);
    return true;
  } catch {
    return false;
  }
};
/** a λ_opd schedule string, checked by the one schedule parser (methodVocabulary.ts) */
const scheduleSpec = () =>
  typed(
    z.string().refine(isScheduleSpec, { message: `expected one of ${SCHEDULE_SYNTAX} (N a positive integer)` }),
    `${SCHEDULE_FORMS.join(' | ')} (N a positive integer)`,
  );

/** GRPO hyper-parameters (docs/METHODS.md §2), shared by the teacher and student stages (same defaults for both). */
const grpoSchema = z.strictObject({
  groupSize: typed(
    z.number().int().min(2, { message: 'expected an integer ≥ 2 (a group needs two samples)' }),
    'integer ≥ 2',
  )
    .default(8)
    .describe('G: samples per task in a GRPO group (advantages are relative within the group; ≥ 2)'),
  tasksPerStep: posInt().default(8).describe('tasks per GRPO step; one step samples tasksPerStep·groupSize episodes'),
  learningRate: positive().default(1e-3).describe('Adam learning rate of the GRPO stage'),
  temperature: positive()
    .default(1)
    .describe('sampling temperature of the rollouts (1 = the policy as it is, so the samples are on-policy)'),
  clipLow: unit().default(0.2).describe('ε_low: the ratio is clipped below at 1 − ε_low (PPO/GRPO default 0.2); < 1'),
  clipHigh: unit().default(0.28).describe("ε_high: the ratio is clipped above at 1 + ε_high (DAPO's clip-higher 0.28)"),
  advantage: z
    .enum(GRPO_ADVANTAGES)
    .default('group')
    .describe(
      "advantage scaling: R − group mean divided by the group's std (group, GRPO), the batch's (batch), or not (none)",
    ),
  aggregation: z
    .enum(GRPO_AGGREGATIONS)
    .default('token-mean')
    .describe("how the loss pools action tokens (verl's names); token-mean weighs every action token alike"),
  klBeta: nonNeg()
    .default(0)
    .describe('β of the k3 KL penalty to π_init, the policy GRPO starts from (0 = off: no reference forward pass)'),
  advantageEpsilon: positive().default(1e-6).describe("ε added to the std when scaling advantages (verl's 1e-6)"),
  gradClip: nonNeg()
    .nullable()
    .default(1)
    .describe(
      "clip the policy gradient to this global L2 norm over all parameters before the optimizer step (verl's actor.grad_clip 1.0); 0 or null = off",
    ),
  clipRatioC: typed(
    finite().refine((v) => v > 1, { message: 'expected a number > 1' }),
    'number > 1',
  )
    .nullable()
    .default(3)
    .describe(
      "dual-clip c: for a negative advantage the per-token loss is at most −c·Â, so a ratio far above 1 cannot blow it up (verl's clip_ratio_c 3.0); null = off",
    ),
  miniBatches: posInt()
    .default(2)
    .describe(
      "PPO mini-batches per rollout: the rollout's groups are split into this many consecutive mini-batches, one optimizer step each (verl's ppo_mini_batch_size = tasksPerStep / miniBatches tasks); 2 makes the second update off-policy so the clip and the k3 ratio act, at the cost of one more forward/backward pass than 1, and keeps each mini-batch at 4 whole groups with the default 8 tasks",
    ),
  epochs: posInt()
    .default(1)
    .describe(
      "PPO epochs: passes over the rollout's mini-batches (verl's ppo_epochs 1); each pass costs a forward and backward of the whole rollout",
    ),
});

export const experimentConfigSchema = z.strictObject({
  name: z.string().min(1).default('experiment').describe('free-form run name, used in folder names and reports'),
  seed: count().default(0).describe('master seed: model init, sampling, task order (an unsigned 32-bit integer)'),
  env: z.strictObject({
    name: z.enum(ENV_NAMES).default('shell').describe('the agentic micro-environment (src/core/env)'),
    seed: count()
      .default(1)
      .describe('seed of the task universe, kept apart from the run seed so that the seeds of a sweep share tasks'),
    misleadingSkillFraction: unit()
      .default(0.2)
      .describe(
        "fraction of the skill bank's entries that point the wrong way, so the teacher must learn when not to trust its skill",
      ),
    invalidActionPenalty: nonNeg()
      .default(0.1)
      .describe('reward subtracted per invalid action (reward units: a solved task scores 1)'),
    randomFacts: z
      .boolean()
      .default(false)
      .describe(
        'each task draws its own facts (the skill still tells them): the negative control, where there is nothing to internalise and the gate should not retire, and the universe the shipped teachers are trained in, so they must read their skill',
      ),
  }),
  model: z.strictObject({
    width: posInt().default(64).describe('d_model: embedding and residual width (divisible by heads)'),
    layers: posInt().default(2).describe('pre-LN transformer blocks'),
    heads: posInt().default(4).describe('attention heads per block (must divide width)'),
    mlp: posInt().default(256).describe("hidden width of each block's GELU MLP (4·width by default)"),
  }),
  demonstrations: z.strictObject({
    tasks: count().default(256).describe('scripted trajectories for SFT, on training tasks 0..tasks−1'),
    studentPolicy: z
      .enum(DEMONSTRATORS)
      .default('explorer')
      .describe(
        "who demonstrates in the student's view: explorer probes in a fact-independent order, so the skill-free student cannot read the facts off its demonstrations; expert is the old recipe, whose first action reveals the fact",
      ),
    teacherPolicy: z
      .enum(DEMONSTRATORS)
      .default('skillFollower')
      .describe(
        "who demonstrates in the teacher's (skill) view: skillFollower acts on what the skill says, misleading entries included, so the teacher learns to read its skill; with expert the action never depends on the skill",
      ),
  }),
  sft: z.strictObject({
    steps: count().default(60).describe('SFT steps on the demonstrations (0 = start GRPO from the initial model)'),
    batchSize: posInt().default(32).describe('demonstrations per SFT step'),
    learningRate: positive().default(3e-3).describe('Adam learning rate of SFT'),
    lambdaObs: nonNeg()
      .default(1)
      .describe(
        'λ_obs of docs/METHODS.md §1, the weight of observation tokens in the SFT loss: 0 = ActionSFT, 1 = ActObs',
      ),
    geometryEvery: count()
      .default(10)
      .describe('measure the gradient geometry cos(g_act, g_obs) every N SFT steps (0 = never)'),
    heldOutTasks: count()
      .default(32)
      .describe('held-out demonstrations (validation split) for the observation CE of the base vs the SFT policy'),
  }),
  teacher: z.strictObject({
    sftSteps: count()
      .default(0)
      .describe(
        "skill-view SFT steps of a teacher trained in the run, before its GRPO: it starts from the student's SFT checkpoint (which saw no skill) and trains on teacherPolicy demonstrations with the skill segment in front (sft.batchSize, sft.learningRate, sft.lambdaObs); 0 = the papers' recipe. Ignored with a shipped checkpoint",
      ),
    steps: count()
      .default(40)
      .describe('GRPO steps of the skill-conditioned teacher (0 with a checkpoint = use it as is)'),
    grpo: grpoSchema,
    checkpoint: z
      .string()
      .superRefine((value, ctx) => {
        // never a URL: in the CLI a local path, in the tab one inside the app (fileReference.ts)
        const problem = fileReferenceProblem(value, 'local');
        if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
      })
      .default('')
      .describe('a shipped trained teacher: checkpoint folder relative to public/ (or absolute); "" = train one'),
  }),
  student: z.strictObject({
    steps: count().default(80).describe('student GRPO(+OPD) steps, counted from 1'),
    grpo: grpoSchema,
    schedule: scheduleSpec()
      .default('adaptive')
      .describe('λ_opd schedule (docs/METHODS.md §4): adaptive = the retirement gate; the others are its ablations'),
    lambdaOpd: nonNeg().default(0.5).describe('λ_opd, the weight of the OPD loss while the teacher is active'),
    estimator: z
      .enum(OPD_ESTIMATORS)
      .default('k3')
      .describe(
        "OPD loss estimator: k3 (the public RetireOPD code's), full (exact reverse KL), naive (teaching ablation)",
      ),
    distill: z.strictObject({
      form: z
        .enum(DISTILL_FORMS)
        .default('reverse-kl')
        .describe(
          'distillation form (docs/METHODS.md §3, distillation forms): reverse-kl (the default: student.estimator on the sampled tokens), topk-forward-kl (verl: forward KL over the teacher\'s top-k + an "other" bucket), kl-reward (−per-token reverse KL added to the advantage), gkd-jsd (TRL GKD generalized JSD), self-distill (the student with the skill in context as its own frozen teacher)',
        ),
      topK: posInt().default(4).describe('k of topk-forward-kl: the teacher tokens kept; the rest is one bucket'),
      beta: unit()
        .default(0.5)
        .describe("β of gkd-jsd (TRL's convention): 0 = forward KL(P_T‖P_θ), 1 = reverse KL(P_θ‖P_T), between = JSD"),
      studentFraction: unit()
        .default(1)
        .describe(
          "GKD's λ (TRL's lmbda), gkd-jsd only: each student step distils on the student's rollout with probability λ, else on sequences the teacher samples with its skill (GRPO and the gate's gap stay on the student's rollout); 1 = fully on-policy",
        ),
      refreshEvery: posInt()
        .default(20)
        .describe('N of self-distill: the frozen self-teacher is the student copied every N student steps'),
    }),
    validationEvery: posInt().default(5).describe('validate (and let the gate evaluate) every N student steps'),
    validationTasks: posInt()
      .default(64)
      .describe("validation tasks (validation split, one sample each): the gate's S and also the teacher's S_T"),
    validationTemperature: positive()
      .default(0.4)
      .describe(
        "sampling temperature of the validation rollouts, of the gate's S and of the teacher's S_T alike (the public scripts validate at 0.4)",
      ),
    validationMetric: z
      .enum(VALIDATION_METRICS)
      .default('success_rate')
      .describe("the metric of the gate's validation score S and of S_T"),
    gate: z.strictObject({
      windowSize: posInt()
        .default(GATE_DEFAULTS.windowSize)
        .describe('W: student steps per non-overlapping window of K = −gap values (docs/METHODS.md §4 default: 5)'),
      alignmentThreshold: finite()
        .default(GATE_DEFAULTS.alignmentThreshold)
        .describe('δ: retire only when the alignment progress ρ ≤ δ (0: the gap stopped shrinking)'),
      competenceThreshold: nonNeg()
        .default(GATE_DEFAULTS.competenceThreshold)
        .describe('γ: retire only when the competence ratio η = (S + S_prev)/(2·S_T) ≥ γ (0.9: near the teacher)'),
      denominatorEpsilon: positive()
        .default(GATE_DEFAULTS.denominatorEpsilon)
        .describe('ε: ρ is computed only when |previous window mean| > ε'),
    }),
  }),
  evaluation: z.strictObject({
    testTasks: posInt().default(64).describe('test-split tasks of the final evaluation'),
    passN: posInt().default(16).describe('attempts per test task for pass@k (the paper: 16)'),
    passK: typed(z.array(posInt()).min(1), 'non-empty array of integers ≥ 1')
      .default([1, 4, 16])
      .describe('the k of the reported pass@k (each ≤ passN)'),
    probeTasks: posInt().default(16).describe('fixed probe set for KL(π_init ‖ π)'),
    temperatures: typed(z.array(positive()), 'array of numbers > 0')
      .default([])
      .describe('temperature control for ActObs-vs-ActionSFT: temperatures tried on the final policy (empty = skip)'),
    matchArgEntropy: nonNeg()
      .nullable()
      .default(null)
      .describe(
        'temperature matching for ActObs-vs-ActionSFT: the argument-token entropy (nats, probe set) to match by bisection over T; null = off (a sweep with matchTemperature sets it per run)',
      ),
  }),
  runtime: z.strictObject({
    backend: z
      .enum(BACKEND_NAMES)
      .default('wasm')
      .describe('tfjs backend; wasm is the fastest on a CPU (webgl needs a browser)'),
    checkpointEvery: count()
      .default(10)
      .describe('checkpoint every N SFT/teacher/student steps (0 = only at stage ends and on interrupt)'),
    keepCheckpoints: count()
      .default(3)
      .describe(
        'keep the newest N periodic/interrupt checkpoints plus every stage boundary and the latest; 0 = keep all (a long run then fills the disk)',
      ),
  }),
});

export type ExperimentConfig = z.infer<typeof experimentConfigSchema>;
export type GrpoConfig = ExperimentConfig['student']['grpo'];

/**
 * Keys a saved config (a run folder's config.json, a checkpoint) may lack because they were added later, with the
 * value their absence means: how runs made before the key existed behaved. Only these keys may be missing there;
 * a new config gets the schema's default instead (resolveConfig merges over DEFAULT_CONFIG).
 */
export const SAVED_CONFIG_FALLBACKS: Readonly<Record<string, unknown>> = {
  'env.randomFacts': false,
  'demonstrations.studentPolicy': 'expert',
  'demonstrations.teacherPolicy': 'expert',
  'evaluation.matchArgEntropy': null,
  // runs from before the public recipe's safeguards: no clipping, one update per rollout, validation at temperature 1
  'teacher.grpo.gradClip': null,
  'teacher.grpo.clipRatioC': null,
  'teacher.grpo.miniBatches': 1,
  'teacher.grpo.epochs': 1,
  'student.grpo.gradClip': null,
  'student.grpo.clipRatioC': null,
  'student.grpo.miniBatches': 1,
  'student.grpo.epochs': 1,
  'student.validationTemperature': 1,
  'teacher.sftSteps': 0,
  // runs from before the distillation forms: the reverse KL of student.estimator (the knobs are then never read)
  'student.distill.form': 'reverse-kl',
  'student.distill.topK': 4,
  'student.distill.beta': 0.5,
  'student.distill.studentFraction': 1,
  'student.distill.refreshEvery': 20,
};

/**
 * Keys the lab once had and no longer trains, with what a user should do instead. A config (or a saved run's config)
 * that still sets one is refused with this text rather than as an unknown key: the run it describes used a recipe the
 * lab cannot reproduce, so it can be viewed and compared but not continued.
 */
export const REMOVED_CONFIG_KEYS: Readonly<Record<string, string>> = {
  'sft.skillViewFraction':
    "was removed: the student's SFT now sees only skill-free demonstrations, and an in-run teacher gets its own skill-view SFT (teacher.sftSteps). A run made with it cannot be continued; view or compare it, or start a new run without the key",
};

const dotted = (prefix: string, key: string): string => (prefix ? `${prefix}.${key}` : key);

/** The default of every leaf of `schema`, as a tree (each leaf must carry a `.default`). */
function defaultsOf(schema: z.ZodType, path = ''): unknown {
  if (schema instanceof z.ZodObject)
    return Object.fromEntries(
      Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, s]) => [k, defaultsOf(s, dotted(path, k))]),
    );
  if (schema instanceof z.ZodDefault) return (schema.def as { defaultValue: unknown }).defaultValue;
  throw new Error(`config schema: key "${path}" has no default`);
}

/** The schema a full (saved) config is checked with (validateConfig): every key required but SAVED_CONFIG_FALLBACKS. */
function savedSchemaOf(schema: z.ZodType, path = ''): z.ZodType {
  if (schema instanceof z.ZodObject) {
    const object = z.strictObject(
      Object.fromEntries(
        Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, s]) => [
          k,
          savedSchemaOf(s, dotted(path, k)),
        ]),
      ),
    );
    // a group added later (every leaf a fallback, e.g. student.distill) may be missing as a whole
    const leaves = Object.keys(schema.shape as object).map((k) => dotted(path, k));
    const allFallback = path !== '' && leaves.every((k) => Object.hasOwn(SAVED_CONFIG_FALLBACKS, k));
    return allFallback ? object.prefault({}) : object;
  }
  if (schema instanceof z.ZodDefault) {
    const inner = schema.unwrap() as z.ZodType;
    return Object.hasOwn(SAVED_CONFIG_FALLBACKS, path) ? inner.default(SAVED_CONFIG_FALLBACKS[path]) : inner;
  }
  throw new Error(`config schema: key "${path}" has no default`);
}
export const savedConfigSchema = savedSchemaOf(experimentConfigSchema);

/** The defaults of every key, derived from the schema (and checked by it). */
export const DEFAULT_CONFIG: ExperimentConfig = experimentConfigSchema.parse(defaultsOf(experimentConfigSchema));

/** One row of `--list-keys`: a dotted leaf key, its value type in words, its default and what it means. */
export interface ConfigKeyInfo {
  readonly key: string;
  readonly type: string;
  readonly default: unknown;
  readonly description: string;
  /** for SAVED_CONFIG_FALLBACKS keys: what the key's absence from a saved config means */
  readonly savedConfigFallback?: unknown;
}

/** The value type of a leaf schema in words: an enum's names, a labelled constraint, or the bare zod type. */
function typeOf(schema: z.ZodType): string {
  const label = typeLabels.get(schema)?.type;
  if (label !== undefined) return label;
  if (schema instanceof z.ZodNullable) return `${typeOf(schema.unwrap() as z.ZodType)} | null`;
  if (schema instanceof z.ZodEnum) return (schema.options as string[]).join(' | ');
  if (schema instanceof z.ZodBoolean) return 'true | false';
  if (schema instanceof z.ZodString) return 'string';
  return schema.def.type;
}

/** Every leaf key of the schema, dotted, in declaration order, with its type, default and description. */
export function configKeyTable(schema: z.ZodType = experimentConfigSchema, prefix = ''): ConfigKeyInfo[] {
  if (schema instanceof z.ZodObject)
    return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([k, s]) =>
      configKeyTable(s, dotted(prefix, k)),
    );
  if (!(schema instanceof z.ZodDefault)) throw new Error(`config schema: key "${prefix}" has no default`);
  return [
    {
      key: prefix,
      type: typeOf(schema.unwrap() as z.ZodType),
      default: (schema.def as { defaultValue: unknown }).defaultValue,
      description: schema.description ?? '',
      ...(Object.hasOwn(SAVED_CONFIG_FALLBACKS, prefix) ? { savedConfigFallback: SAVED_CONFIG_FALLBACKS[prefix] } : {}),
    },
  ];
}
