// The RetireOPD retirement gate: the exact state machine of docs/METHODS.md §4 (the public code's
// RetireOPDScheduler).
//
// Call order the trainer follows, once per training step k (before the optimiser update is logged):
//   const plan = gate.beginStep(k);            // { opdCoef, teacherNeeded }; counts a skipped teacher forward
//   if (plan.teacherNeeded) gate.observeGap(k, g_k);   // g_k = token-mean(log πT − log π_old) over action tokens
//   if (k is a validation step) gate.validate(k, S_k); // S_k = student's validation score, same metric as S_T
// The step's gap is always observed before its validation. Steps are opaque integers (the trainer's global step).
// (~350 lines on purpose: the gate and its checkpointable state are one state machine, kept whole to read against
// the public code.)
import { mean } from './windowedMean';
import { type GateConfig, type GateConfigInput, gateConfigDifferences, parseGateConfig } from './gateConfig';
import { CheckpointError } from './errors';
import {
  PUBLIC_GATE_CONFIG_KEYS,
  type PublicGateConfig,
  fromPublicGateConfig,
  toPublicGateConfig,
} from './publicGateConfig';
import { gateStateProblem, gateStateSchema } from './gateStateSchema';
import { GATE_RULES, type GateRule, isOneOf } from './methodVocabulary';

/**
 * Every `retire_opd/*` metric of the public code, in its order, then the lab's own running count. Booleans are 0/1;
 * trigger_step is −1 before. teacher_forward_skipped is the public code's per-step flag (1: this step's teacher
 * forward was skipped); the lab's running count of them is teacher_forwards_skipped_total. Logs written before the
 * flag held the count under teacher_forward_skipped: runLog/skippedTeacherForwards.ts maps them on read.
 */
export const RETIRE_OPD_METRIC_NAMES = [
  'retire_opd/k_step',
  'retire_opd/k_window_mean',
  'retire_opd/alignment_progress',
  'retire_opd/student_performance',
  'retire_opd/teacher_performance',
  'retire_opd/competence_ratio',
  'retire_opd/alignment_threshold',
  'retire_opd/competence_threshold',
  'retire_opd/criterion_valid',
  'retire_opd/retired',
  'retire_opd/trigger_step',
  'retire_opd/opd_coef',
  'retire_opd/window_index',
  'retire_opd/window_fill',
  'retire_opd/num_evaluated_windows',
  'retire_opd/teacher_forward_skipped',
  'retire_opd/teacher_forwards_skipped_total',
] as const;
export type RetireOpdMetricName = (typeof RETIRE_OPD_METRIC_NAMES)[number];
export type RetireOpdMetrics = Record<RetireOpdMetricName, number>;

/** What the trainer must do this step. */
export interface StepPlan {
  /** λ_opd for this step's loss. */
  readonly opdCoef: number;
  /** Whether the teacher forward pass must run (and its gap be passed to observeGap). */
  readonly teacherNeeded: boolean;
}

/** One completed, non-overlapping window of W values of K = −g. */
export interface GateWindow {
  /** The training step whose gap completed the window. */
  readonly end_step: number;
  /** K̄_m: mean of the window's K values. */
  readonly mean: number;
}

/** The outcome of a validation that evaluated a window. NaN marks a quantity that could not be computed. */
export interface GateEvaluation {
  readonly step: number;
  /** 1-based ordinal of the evaluated window (= num_evaluated_windows after this evaluation). */
  readonly window_index: number;
  readonly window_end_step: number;
  /** K̄ of the evaluated window (`cur`). */
  readonly k_window_mean: number;
  readonly student_performance: number;
  /** ρ = (prev − cur)/prev; NaN for the first window or when |prev| ≤ ε. */
  readonly alignment_progress: number;
  /** η = (S + S_prev)/(2·S_T); NaN exactly when ρ is. */
  readonly competence_ratio: number;
  readonly criterion_valid: boolean;
  /** The gate's state after this evaluation. */
  readonly retired: boolean;
  /** True only for the evaluation that retired the gate. */
  readonly triggered: boolean;
}

/**
 * What an evaluation compared, in steps: the evaluated window (its first and last gap steps), the window before it,
 * and how old the evidence was when the validation read it. Not part of the checkpoint: a read-out of the gate's own
 * bookkeeping (the oldest completed window not yet evaluated is `cur`, METHODS §4), kept for explaining a decision.
 */
export interface GateEvidence {
  /** the validation step that evaluated the window */
  readonly step: number;
  /** 1-based ordinal of the evaluated window (`cur`) */
  readonly window_index: number;
  /** the step whose gap was the window's first; null where the window began before a checkpoint restore */
  readonly window_start_step: number | null;
  /** the step whose gap completed the window */
  readonly window_end_step: number;
  /** the window compared against (`prev`); null for the first evaluated window */
  readonly previous_window_index: number | null;
  readonly previous_window_end_step: number | null;
  /** step − window_end_step: how many steps before the decision its evaluated window closed (0: fresh) */
  readonly age_steps: number;
}

/** A user-actionable error about a value fed to the gate (non-finite gap or score). */
export class GateInputError extends Error {
  constructor(
    readonly step: number,
    message: string,
  ) {
    super(message);
    this.name = 'GateInputError';
  }
}

export const GATE_STATE_VERSION = 1;

/**
 * The checkpointed state; JSON-safe (no NaN: absent values are null). Its keys are the public code's (snake_case,
 * the config too: publicGateConfig.ts), so a checkpoint is interchangeable with the public code's.
 */
export interface GateState {
  readonly version: typeof GATE_STATE_VERSION;
  readonly rule: GateRule;
  readonly config: PublicGateConfig;
  readonly opd_coef: number;
  readonly pending_k_values: readonly number[];
  readonly completed_windows: readonly GateWindow[];
  readonly num_evaluated_windows: number;
  readonly previous_window_mean: number | null;
  readonly previous_performance: number | null;
  readonly retired: boolean;
  readonly trigger_step: number | null;
  readonly teacher_forward_skipped: number;
  /** The latest per-call values, so metrics() reads the same after a restore. */
  readonly last: {
    readonly k_step: number | null;
    readonly student_performance: number | null;
    readonly alignment_progress: number | null;
    readonly competence_ratio: number | null;
    readonly criterion_valid: boolean;
  };
}

const orNaN = (value: number | null): number => (value === null ? Number.NaN : value);
const orNull = (value: number): number | null => (Number.isFinite(value) ? value : null);

export class RetirementGate {
  readonly config: GateConfig;
  readonly rule: GateRule;
  private opdCoef: number;
  private pending: number[] = [];
  private windows: GateWindow[] = [];
  private evaluated = 0;
  private previousWindowMean: number | null = null;
  private previousPerformance: number | null = null;
  private isRetired = false;
  private trigger: number | null = null;
  private skipped = 0;
  /** whether the latest begun step skipped the teacher forward (the public code's per-step flag) */
  private skippedThisStep = false;
  private lastK = Number.NaN;
  private lastScore = Number.NaN;
  private lastProgress = Number.NaN;
  private lastCompetence = Number.NaN;
  private lastValid = false;
  /** the first gap step of each completed window, then of the pending buffer (null: before a restore) */
  private windowStarts: (number | null)[] = [];
  private pendingStart: number | null = null;
  private latestEvidence: GateEvidence | null = null;

  constructor(config: GateConfigInput | GateConfig, rule: GateRule = 'alignment-and-competence') {
    this.config = parseGateConfig(config);
    if (!isOneOf(GATE_RULES, rule)) throw new Error(`unknown gate rule "${String(rule)}"`);
    this.rule = rule;
    this.opdCoef = this.config.lambdaOpd;
  }

  get retired(): boolean {
    return this.isRetired;
  }
  /** The step whose validation retired the gate, or null. */
  get triggerStep(): number | null {
    return this.trigger;
  }
  /** λ_opd now: the configured coefficient until retirement, 0 after. */
  get coefficient(): number {
    return this.opdCoef;
  }
  get teacherNeeded(): boolean {
    return !this.isRetired;
  }
  get completedWindows(): readonly GateWindow[] {
    return this.windows;
  }
  get numEvaluatedWindows(): number {
    return this.evaluated;
  }
  get teacherForwardSkipped(): number {
    return this.skipped;
  }
  /** What the latest evaluation compared (null before the first): see GateEvidence. */
  get evidence(): GateEvidence | null {
    return this.latestEvidence;
  }

  /** Start training step `step`: says what to run, and counts the teacher forward a retired gate saves. */
  beginStep(_step: number): StepPlan {
    this.skippedThisStep = this.isRetired;
    if (this.isRetired) this.skipped += 1;
    return { opdCoef: this.opdCoef, teacherNeeded: !this.isRetired };
  }

  /** A step begun outside the gate (a schedule that stopped the teacher itself): whether its teacher forward ran;
   *  a skipped one is counted. */
  noteTeacherForward(ran: boolean): void {
    this.skippedThisStep = !ran;
    if (!ran) this.skipped += 1;
  }

  /**
   * Observe step `step`'s gap g = token-mean(log πT − log π_old); stores K = −g. Returns the completed window when
   * this value completed one, else null. After retirement gaps are ignored (the teacher no longer runs).
   */
  observeGap(step: number, gap: number): GateWindow | null {
    if (this.isRetired) return null;
    if (!Number.isFinite(gap)) {
      throw new GateInputError(step, `step ${step}: teacher-student gap must be a finite number, got ${gap}`);
    }
    const k = -gap;
    this.lastK = k;
    if (this.pending.length === 0) this.pendingStart = step;
    this.pending.push(k);
    if (this.pending.length < this.config.windowSize) return null;
    const window: GateWindow = { end_step: step, mean: mean(this.pending) };
    this.windows.push(window);
    this.windowStarts.push(this.pendingStart);
    this.pendingStart = null;
    this.pending = [];
    return window;
  }

  /**
   * A validation at step `step` with student score S. Evaluates the oldest completed window not yet evaluated, or
   * returns null (changing nothing but the reported score) when there is none.
   */
  validate(step: number, score: number): GateEvaluation | null {
    if (!Number.isFinite(score)) {
      throw new GateInputError(step, `step ${step}: validation score must be a finite number, got ${score}`);
    }
    this.lastScore = score;
    this.lastProgress = Number.NaN;
    this.lastCompetence = Number.NaN;
    this.lastValid = false;
    const window = this.windows[this.evaluated];
    if (window === undefined) return null;

    const cur = window.mean;
    const prev = this.previousWindowMean;
    let progress = Number.NaN;
    let competence = Number.NaN;
    let valid = false;
    if (prev !== null && this.previousPerformance !== null && Math.abs(prev) > this.config.denominatorEpsilon) {
      // Signed denominator, as in the public code: P > 0 means the gap is still shrinking.
      progress = (prev - cur) / prev;
      competence = (score + this.previousPerformance) / (2 * this.config.teacherPerformance);
      valid = Number.isFinite(progress) && Number.isFinite(competence);
    }
    const previousWindow = this.windows[this.evaluated - 1];
    this.latestEvidence = {
      step,
      window_index: this.evaluated + 1,
      window_start_step: this.windowStarts[this.evaluated] ?? null,
      window_end_step: window.end_step,
      previous_window_index: previousWindow === undefined ? null : this.evaluated,
      previous_window_end_step: previousWindow?.end_step ?? null,
      age_steps: step - window.end_step,
    };
    this.previousWindowMean = cur;
    this.previousPerformance = score;
    this.evaluated += 1;

    const triggered = !this.isRetired && valid && this.retires(progress, competence);
    if (triggered) {
      this.isRetired = true;
      this.trigger = step;
      this.opdCoef = 0;
    }
    this.lastProgress = progress;
    this.lastCompetence = competence;
    this.lastValid = valid;
    return {
      step,
      window_index: this.evaluated,
      window_end_step: window.end_step,
      k_window_mean: cur,
      student_performance: score,
      alignment_progress: progress,
      competence_ratio: competence,
      criterion_valid: valid,
      retired: this.isRetired,
      triggered,
    };
  }

  private retires(progress: number, competence: number): boolean {
    const aligned = progress <= this.config.alignmentThreshold;
    const competent = competence >= this.config.competenceThreshold;
    switch (this.rule) {
      case 'alignment-and-competence':
        return aligned && competent;
      case 'alignment-only':
        return aligned;
      case 'competence-only':
        return competent;
      case 'observe-only':
        return false;
    }
  }

  /** Every retire_opd/* metric, reflecting the latest observeGap / validate calls. */
  metrics(): RetireOpdMetrics {
    const latest = this.windows[this.windows.length - 1];
    return {
      'retire_opd/k_step': this.lastK,
      'retire_opd/k_window_mean': latest === undefined ? Number.NaN : latest.mean,
      'retire_opd/alignment_progress': this.lastProgress,
      'retire_opd/student_performance': this.lastScore,
      'retire_opd/teacher_performance': this.config.teacherPerformance,
      'retire_opd/competence_ratio': this.lastCompetence,
      'retire_opd/alignment_threshold': this.config.alignmentThreshold,
      'retire_opd/competence_threshold': this.config.competenceThreshold,
      'retire_opd/criterion_valid': this.lastValid ? 1 : 0,
      'retire_opd/retired': this.isRetired ? 1 : 0,
      'retire_opd/trigger_step': this.trigger ?? -1,
      'retire_opd/opd_coef': this.opdCoef,
      'retire_opd/window_index': this.windows.length,
      'retire_opd/window_fill': this.pending.length,
      'retire_opd/num_evaluated_windows': this.evaluated,
      'retire_opd/teacher_forward_skipped': this.skippedThisStep ? 1 : 0,
      'retire_opd/teacher_forwards_skipped_total': this.skipped,
    };
  }

  toJSON(): GateState {
    return {
      version: GATE_STATE_VERSION,
      rule: this.rule,
      config: toPublicGateConfig(this.config),
      opd_coef: this.opdCoef,
      pending_k_values: [...this.pending],
      completed_windows: this.windows.map((w) => ({ ...w })),
      num_evaluated_windows: this.evaluated,
      previous_window_mean: this.previousWindowMean,
      previous_performance: this.previousPerformance,
      retired: this.isRetired,
      trigger_step: this.trigger,
      teacher_forward_skipped: this.skipped,
      last: {
        k_step: orNull(this.lastK),
        student_performance: orNull(this.lastScore),
        alignment_progress: orNull(this.lastProgress),
        competence_ratio: orNull(this.lastCompetence),
        criterion_valid: this.lastValid,
      },
    };
  }

  /**
   * Restore a checkpointed gate into the run's current config (and rule). A checkpoint written under another config
   * is an error naming the checkpoint's key: "checkpoint config does not match: window_size 5 ≠ 3" (checkpoint value
   * first).
   */
  static fromJSON(
    state: unknown,
    config: GateConfigInput | GateConfig,
    rule: GateRule = 'alignment-and-competence',
  ): RetirementGate {
    const gate = new RetirementGate(config, rule);
    const s = parseGateState(state);
    const differences = gateConfigDifferences(
      fromPublicGateConfig(s.config),
      gate.config,
      (field) => PUBLIC_GATE_CONFIG_KEYS[field],
    );
    if (differences.length > 0) {
      throw new CheckpointError(`checkpoint config does not match: ${differences.join(', ')}`);
    }
    if (s.rule !== rule) throw new CheckpointError(`checkpoint gate rule does not match: ${s.rule} ≠ ${rule}`);
    const problem = gateStateProblem(s);
    if (problem !== null) throw new CheckpointError(`gate checkpoint is inconsistent: ${problem}`);
    gate.opdCoef = s.opd_coef;
    gate.pending = [...s.pending_k_values];
    gate.windows = s.completed_windows.map((w) => ({ ...w }));
    gate.windowStarts = gate.windows.map(() => null);
    gate.evaluated = s.num_evaluated_windows;
    gate.previousWindowMean = s.previous_window_mean;
    gate.previousPerformance = s.previous_performance;
    gate.isRetired = s.retired;
    gate.trigger = s.trigger_step;
    gate.skipped = s.teacher_forward_skipped;
    // every schedule stops the teacher for good, so the last begun step skipped it iff any step did
    gate.skippedThisStep = s.teacher_forward_skipped > 0;
    gate.lastK = orNaN(s.last.k_step);
    gate.lastScore = orNaN(s.last.student_performance);
    gate.lastProgress = orNaN(s.last.alignment_progress);
    gate.lastCompetence = orNaN(s.last.competence_ratio);
    gate.lastValid = s.last.criterion_valid;
    return gate;
  }
}

// The shape of a checkpoint (gateStateSchema.ts; its invariants are checked after the config): a CheckpointError.

function parseGateState(state: unknown): GateState {
  const version = (state as { version?: unknown } | null)?.version;
  if (version !== GATE_STATE_VERSION) {
    throw new CheckpointError(
      `unsupported gate checkpoint version ${JSON.stringify(version)} (expected ${GATE_STATE_VERSION})`,
    );
  }
  const result = gateStateSchema.safeParse(state);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CheckpointError(
      `gate checkpoint is malformed at ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? '?'}`,
    );
  }
  return result.data as GateState;
}
