// The method vocabulary: every name a config, a CLI flag, an app select or a parser accepts for the lab's methods,
// declared once. The zod config schema (experiment/config.ts), the losses, the backend loader, the environments,
// the CLI help texts and the app's selects all take their lists from here, so a new name is added in one place.
// Pure TypeScript: no zod, no tfjs, no DOM. The science behind each name is in docs/METHODS.md.

/** True when `value` is one of `names` (a type guard for the `as const` lists below). */
export function isOneOf<T extends string>(names: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (names as readonly string[]).includes(value);
}

// ── λ_opd schedules (docs/METHODS.md §4 ablations) ──────────────────────────────────────────────────────────────────

/**
 * Schedules written as the bare name. `adaptive` = the retirement gate (ρ ≤ δ ∧ η ≥ γ); `alignment-only` /
 * `competence-only` = the gate on one condition; `never` = OPD throughout; `none` = pure GRPO, teacher never run.
 */
export const PLAIN_SCHEDULE_KINDS = ['adaptive', 'never', 'none', 'alignment-only', 'competence-only'] as const;
/**
 * Schedules written `kind:N` with N a positive integer (a student training step; steps count from 1):
 * `fixed:N` = λ_opd through step N, then 0; `linear:N` = λ_opd annealed linearly to 0 at step N.
 * N = 0 is refused for both: the first student step is 1, so `fixed:0` would never run the teacher (a `none`
 * that reports itself retired) and `linear:0` would divide by zero.
 */
export const STEP_SCHEDULE_KINDS = ['fixed', 'linear'] as const;
/** Every schedule kind, in the order the help texts and the schedules sweep list them. */
export const SCHEDULE_KINDS = [
  'adaptive',
  'never',
  'none',
  'fixed',
  'linear',
  'alignment-only',
  'competence-only',
] as const;
/** The schedules whose retirement the gate decides (the ones the replay command and the what-if panel offer). */
export const GATED_SCHEDULE_KINDS = ['adaptive', 'alignment-only', 'competence-only'] as const;

export type PlainScheduleKind = (typeof PLAIN_SCHEDULE_KINDS)[number];
export type StepScheduleKind = (typeof STEP_SCHEDULE_KINDS)[number];
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];
export type GatedScheduleKind = (typeof GATED_SCHEDULE_KINDS)[number];

export type ScheduleSpec =
  { readonly kind: PlainScheduleKind } | { readonly kind: StepScheduleKind; readonly step: number };

const isStepKind = (kind: ScheduleKind): kind is StepScheduleKind => isOneOf(STEP_SCHEDULE_KINDS, kind);

/** Each kind as written in a config ("fixed:N" for the step kinds), in SCHEDULE_KINDS order. */
export const SCHEDULE_FORMS: readonly string[] = SCHEDULE_KINDS.map((k) => (isStepKind(k) ? `${k}:N` : k));
/** The schedule syntax in one line, for help texts and error messages. */
export const SCHEDULE_SYNTAX = SCHEDULE_FORMS.join(', ');

/**
 * Parse a schedule string: "adaptive", "fixed:40", "linear:100", … The one rule for the config schema, the
 * trainer's LambdaSchedule and every view: only the canonical spelling is accepted (no surrounding spaces, N
 * without leading zeros), so formatScheduleSpec(parseScheduleSpec(s)) === s for every accepted s.
 * Throws an Error saying what was expected.
 */
export function parseScheduleSpec(text: string): ScheduleSpec {
  if (isOneOf(PLAIN_SCHEDULE_KINDS, text)) return { kind: text };
  const match = /^(fixed|linear)(?::(.*))?$/.exec(text);
  if (match === null) throw new Error(`unknown schedule "${text}" (expected one of ${SCHEDULE_SYNTAX})`);
  const kind = match[1] as StepScheduleKind;
  const arg = match[2];
  if (arg === undefined || arg === '') throw new Error(`schedule "${text}": ${kind}:N needs a step N, e.g. ${kind}:40`);
  const step = /^[1-9]\d*$/.test(arg) ? Number(arg) : Number.NaN;
  if (!Number.isSafeInteger(step))
    throw new Error(`schedule "${text}": N must be a positive integer (a student step, from 1), got "${arg}"`);
  return { kind, step };
}

export function formatScheduleSpec(spec: ScheduleSpec): string {
  return 'step' in spec ? `${spec.kind}:${spec.step}` : spec.kind;
}

// ── Retirement gate rules (docs/METHODS.md §4) ──────────────────────────────────────────────────────────────────────

/**
 * Which conditions retire the teacher. The paper's gate needs both; the ablations keep one; `observe-only` computes
 * every window and evaluation (so charts can show P and C) but never retires.
 */
export const GATE_RULES = ['alignment-and-competence', 'alignment-only', 'competence-only', 'observe-only'] as const;
export type GateRule = (typeof GATE_RULES)[number];

/** The gate rule a schedule retires by (schedules that never retire on the gate only observe it). */
export function gateRuleFor(kind: ScheduleKind): GateRule {
  switch (kind) {
    case 'adaptive':
      return 'alignment-and-competence';
    case 'alignment-only':
      return 'alignment-only';
    case 'competence-only':
      return 'competence-only';
    default:
      return 'observe-only';
  }
}

// ── Losses ─────────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Estimators of the on-policy distillation loss (docs/METHODS.md §3; engine/losses/opdLoss.ts): `k3` (the public
 * RetireOPD code's, the default), `full` (exact reverse KL over the vocabulary), `naive` (a teaching ablation: the
 * mean log-ratio differentiated directly, whose expected gradient is zero).
 */
export const OPD_ESTIMATORS = ['k3', 'full', 'naive'] as const;
export type OpdEstimator = (typeof OPD_ESTIMATORS)[number];

/**
 * The distillation forms the student stage can run (docs/METHODS.md §3, distillation forms; engine/losses/distillForms.ts):
 * `reverse-kl` (the default and the lab's original form: reverse KL on the student's sampled tokens, estimated as
 * `student.estimator` says), `topk-forward-kl` (verl's on-policy distillation: forward KL over the teacher's top-k
 * tokens plus one "other" bucket), `kl-reward` (the negative per-token reverse-KL estimate added to the policy
 * gradient's advantage; no separate loss), `gkd-jsd` (TRL GKD's generalized JSD with β), `self-distill` (reverse KL
 * against a frozen copy of the student itself with the skill in its context, refreshed every N steps).
 */
export const DISTILL_FORMS = ['reverse-kl', 'topk-forward-kl', 'kl-reward', 'gkd-jsd', 'self-distill'] as const;
export type DistillForm = (typeof DISTILL_FORMS)[number];

/** Whether a form reads the teacher's whole distribution ([B, T, V] logits), not only its log-prob of the sample. */
export function formNeedsTeacherLogits(form: DistillForm, estimator: OpdEstimator): boolean {
  if (form === 'topk-forward-kl' || form === 'gkd-jsd') return true;
  return (form === 'reverse-kl' || form === 'self-distill') && estimator === 'full';
}

/**
 * GRPO advantage scaling (docs/METHODS.md §2; core/grpoAdvantages.ts): R − group mean, divided by the group's std
 * (`group`, GRPO), by the std of the whole batch (`batch`, TRL's scale_rewards="batch") or not at all (`none`,
 * Dr. GRPO).
 */
export const GRPO_ADVANTAGES = ['group', 'batch', 'none'] as const;
export type GrpoAdvantage = (typeof GRPO_ADVANTAGES)[number];

/** How the GRPO loss pools its action tokens (verl's names; engine/losses/grpoLoss.ts). */
export const GRPO_AGGREGATIONS = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum'] as const;
export type GrpoAggregation = (typeof GRPO_AGGREGATIONS)[number];

/** The metric of the gate's validation score S (and of the teacher's S_T): success rate or mean reward. */
export const VALIDATION_METRICS = ['success_rate', 'reward_mean'] as const;
export type ValidationMetric = (typeof VALIDATION_METRICS)[number];

// ── Environments and demonstrators ─────────────────────────────────────────────────────────────────────────────

/** The agentic micro-environments (src/core/env). */
export const ENV_NAMES = ['shell', 'house', 'shop'] as const;
export type EnvName = (typeof ENV_NAMES)[number];

/**
 * Scripted demonstrators of the SFT stage: `explorer` probes in a fact-independent order, `skillFollower` acts on
 * what the skill says (misleading entries included), `expert` acts optimally on the facts.
 */
export const DEMONSTRATORS = ['explorer', 'skillFollower', 'expert'] as const;
export type Demonstrator = (typeof DEMONSTRATORS)[number];

// ── Backends ───────────────────────────────────────────────────────────────────────────────────────────────────

/** The tfjs backends the engine can start (engine/backend.ts): what `runtime.backend` of a config holds. */
export const BACKEND_NAMES = ['cpu', 'wasm', 'webgl', 'webgpu'] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];
/** The backends that start in Node (the CLIs): webgl needs a browser's OffscreenCanvas. */
export const NODE_BACKEND_NAMES = ['cpu', 'wasm', 'webgpu'] as const satisfies readonly BackendName[];
/** Every backend, fastest first: the app's fallback order when a backend does not start. */
export const BACKEND_FALLBACK = ['webgpu', 'webgl', 'wasm', 'cpu'] as const satisfies readonly BackendName[];

/** What the app's backend select offers: `auto` (the fastest that starts) or one backend and the slower ones. */
export const BACKEND_CHOICES = ['auto', ...BACKEND_FALLBACK] as const;
export type BackendChoice = (typeof BACKEND_CHOICES)[number];
