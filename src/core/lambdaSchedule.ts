// λ_opd schedules for the ablations of docs/METHODS.md §4, behind one interface, all driven by the same calls. Their names
// and the spec syntax (`fixed:N`, `linear:N`, N ≥ 1) are declared and parsed in methodVocabulary.ts.
//
//   adaptive          the retirement gate (ρ ≤ δ ∧ η ≥ γ)
//   alignment-only    the gate, retiring on ρ ≤ δ alone
//   competence-only   the gate, retiring on η ≥ γ alone
//   never             OPD throughout (λ = lambdaOpd at every step)
//   none              pure GRPO: λ = 0 and the teacher never runs
//   fixed:N           λ = lambdaOpd for steps ≤ N, then 0 (as if the gate had triggered at step N)
//   linear:N          λ = lambdaOpd · max(0, (N − k)/N): annealed to 0 at step N
//
// Every schedule carries a RetirementGate. The three gate schedules let it decide; the others run it in
// `observe-only` mode on the gaps their teacher produces, so every run reports P, C and windows alike and a
// "never" run shows where the gate would have fired.
//
// Trainer protocol, once per training step k:
//   const { opdCoef, teacherNeeded } = schedule.beginStep(k);  // mutating: counts skipped teacher forwards
//   if (teacherNeeded) schedule.observeGap(k, g_k);             // g_k = token-mean(log πT − log π_old)
//   if (validation step) schedule.validate(k, S_k);             // after the step's gap
//   log(schedule.metrics());                                    // every retire_opd/* metric
// `coefficient(k)` and `teacherNeeded(k)` are pure queries (for previews and charts); they change nothing.
import { CheckpointError } from './errors';
import type { GateConfig, GateConfigInput } from './gateConfig';
import { formatScheduleSpec, gateRuleFor, parseScheduleSpec, type ScheduleSpec } from './methodVocabulary';
import {
  type GateEvaluation,
  type GateState,
  type GateWindow,
  type RetireOpdMetrics,
  RetirementGate,
  type StepPlan,
} from './retirementGate';

export const SCHEDULE_STATE_VERSION = 1;

export interface ScheduleState {
  readonly version: typeof SCHEDULE_STATE_VERSION;
  readonly schedule: string;
  /** The latest step passed to beginStep, or null before the first. */
  readonly last_step: number | null;
  readonly gate: GateState;
}

export class LambdaSchedule {
  readonly spec: ScheduleSpec;
  private gateImpl: RetirementGate;
  private lastStep: number | null = null;

  constructor(spec: ScheduleSpec | string, gateConfig: GateConfigInput | GateConfig) {
    this.spec = typeof spec === 'string' ? parseScheduleSpec(spec) : parseScheduleSpec(formatScheduleSpec(spec));
    this.gateImpl = new RetirementGate(gateConfig, gateRuleFor(this.spec.kind));
  }

  /** The gate: deciding for adaptive / alignment-only / competence-only, observing for the rest. */
  get gate(): RetirementGate {
    return this.gateImpl;
  }

  get name(): string {
    return formatScheduleSpec(this.spec);
  }

  /** True when the gate decides when the teacher retires. */
  get isGated(): boolean {
    return this.gate.rule !== 'observe-only';
  }

  /** λ_opd for training step `step` (pure). For gated schedules this is the gate's current coefficient. */
  coefficient(step: number): number {
    const c = this.gate.config.lambdaOpd;
    const spec = this.spec;
    switch (spec.kind) {
      case 'adaptive':
      case 'alignment-only':
      case 'competence-only':
        return this.gate.coefficient;
      case 'never':
        return c;
      case 'none':
        return 0;
      case 'fixed':
        return step <= spec.step ? c : 0;
      case 'linear':
        return c * Math.min(1, Math.max(0, (spec.step - step) / spec.step));
    }
  }

  /** Whether the teacher forward must run at training step `step` (pure). */
  teacherNeeded(step: number): boolean {
    const spec = this.spec;
    switch (spec.kind) {
      case 'adaptive':
      case 'alignment-only':
      case 'competence-only':
        return !this.gate.retired;
      case 'never':
        return true;
      case 'none':
        return false;
      case 'fixed':
        return step <= spec.step;
      case 'linear':
        return step < spec.step;
    }
  }

  /** Start training step `step`: what to run; a teacher forward the schedule saves is counted. */
  beginStep(step: number): StepPlan {
    this.lastStep = step;
    if (this.isGated) return this.gate.beginStep(step);
    const plan = { opdCoef: this.coefficient(step), teacherNeeded: this.teacherNeeded(step) };
    this.gate.noteTeacherForward(plan.teacherNeeded);
    return plan;
  }

  /** The step's gap g (only when the teacher ran). Ignored when the schedule no longer runs the teacher. */
  observeGap(step: number, gap: number): GateWindow | null {
    if (!this.teacherNeeded(step)) return null;
    return this.gate.observeGap(step, gap);
  }

  /** A validation score; evaluates the oldest unevaluated window (see RetirementGate.validate). */
  validate(step: number, score: number): GateEvaluation | null {
    const evaluation = this.gate.validate(step, score);
    if (evaluation === null || this.isGated) return evaluation;
    return { ...evaluation, retired: this.retired, triggered: false };
  }

  /** Whether the teacher has stopped for good (after the last begun step, for step-based schedules). */
  get retired(): boolean {
    const spec = this.spec;
    if (this.isGated) return this.gate.retired;
    if (spec.kind !== 'fixed' && spec.kind !== 'linear') return false;
    return this.lastStep !== null && this.lastStep >= spec.step;
  }

  /** The last step that used the teacher for gated and fixed schedules; the step λ reached 0 for linear. */
  get triggerStep(): number | null {
    if (this.isGated) return this.gate.triggerStep;
    return this.retired && 'step' in this.spec ? this.spec.step : null;
  }

  /** Every retire_opd/* metric; retire_opd/opd_coef, retired and trigger_step are the schedule's own. */
  metrics(): RetireOpdMetrics {
    const metrics = this.gate.metrics();
    if (this.isGated) return metrics;
    const coef = this.retired ? 0 : this.coefficient(this.lastStep ?? 0);
    return {
      ...metrics,
      'retire_opd/opd_coef': coef,
      'retire_opd/retired': this.retired ? 1 : 0,
      'retire_opd/trigger_step': this.triggerStep ?? -1,
    };
  }

  toJSON(): ScheduleState {
    return { version: SCHEDULE_STATE_VERSION, schedule: this.name, last_step: this.lastStep, gate: this.gate.toJSON() };
  }

  /** Restore into the run's schedule and gate config; a different schedule or config is an error. */
  static fromJSON(
    state: unknown,
    spec: ScheduleSpec | string,
    gateConfig: GateConfigInput | GateConfig,
  ): LambdaSchedule {
    const schedule = new LambdaSchedule(spec, gateConfig);
    const s = state as Partial<ScheduleState> | null;
    if (s === null || typeof s !== 'object' || s.version !== SCHEDULE_STATE_VERSION) {
      throw new CheckpointError(`unsupported schedule checkpoint version ${JSON.stringify(s?.version)}`);
    }
    if (s.schedule !== schedule.name) {
      throw new CheckpointError(
        `checkpoint schedule does not match: ${String(s.schedule).slice(0, 40)} ≠ ${schedule.name}`,
      );
    }
    const lastStep = s.last_step;
    if (lastStep !== null && !(Number.isSafeInteger(lastStep) && (lastStep as number) >= 0)) {
      throw new CheckpointError(
        `schedule checkpoint: last_step must be an integer ≥ 0 or null, got ${JSON.stringify(lastStep)?.slice(0, 40)}`,
      );
    }
    const gate = RetirementGate.fromJSON(s.gate, gateConfig, schedule.gate.rule);
    // Every gap and every trigger belongs to a step the schedule has begun.
    const last = lastStep ?? 0;
    const saved = gate.toJSON();
    const observed = saved.completed_windows.length * gate.config.windowSize + saved.pending_k_values.length;
    if (observed > last || (gate.triggerStep ?? 0) > last || gate.teacherForwardSkipped > last) {
      throw new CheckpointError(
        `schedule checkpoint is inconsistent: last_step ${lastStep} is before its gate's ${observed} gaps, ` +
          `trigger step ${gate.triggerStep ?? '–'} or ${gate.teacherForwardSkipped} skipped teacher forwards`,
      );
    }
    schedule.gateImpl = gate;
    schedule.lastStep = lastStep ?? null;
    return schedule;
  }
}
