// One run's retirement gate across its student steps, as the run reports it: the λ_opd schedule begins each step,
// sees the step's gap g_k and the validation score S, and the run emits a `window` event for each closed window, an
// `evaluation` for each gate decision and a `retirement` at the step the gate retires the teacher. The step line
// carries the shared metrics, then the schedule's retire_opd/* metrics, then the timings. The student stage keeps
// one for its run and each follower (followers.ts) one of its own, so a follower's events and lines are written by
// the same code as the run's alone.
import type { LambdaSchedule } from '../../core/lambdaSchedule';
import type { StepPlan } from '../../core/retirementGate';
import type { MetricsLine, TrainerEventSink } from './events';

export class StudentGate {
  /** the schedule's retired flag before the current step */
  private wasRetired = false;

  constructor(
    /** replaced by a follower that leaves (its schedule as before the step it planned differently) */
    public schedule: LambdaSchedule,
    private readonly emit: TrainerEventSink,
  ) {}

  /** Student step `step` begins: what it runs (λ_opd, whether the teacher's forward runs). */
  beginStep(step: number): StepPlan {
    this.wasRetired = this.schedule.retired;
    return this.schedule.beginStep(step);
  }

  /** The gap g_k the teacher's forward measured at `step`. */
  observeGap(step: number, gap: number): void {
    const window = this.schedule.observeGap(step, gap);
    if (window) this.emit({ type: 'window', step, window });
  }

  /** The validation score S at `step`: the gate decides on it. */
  validate(step: number, score: number): void {
    const evaluation = this.schedule.validate(step, score);
    if (evaluation) this.emit({ type: 'evaluation', kind: 'gate', step, evaluation });
  }

  /**
   * Whether the gate retired the teacher during step `step` (the `retirement` event then emitted, with the
   * teacher's success rate S_T); the caller records its counters at retirement.
   */
  retiredAt(step: number, teacherPerformance: number | null): boolean {
    if (this.wasRetired || !this.schedule.retired) return false;
    this.emit({
      type: 'retirement',
      step,
      triggerStep: this.schedule.triggerStep ?? step,
      schedule: this.schedule.name,
      teacherPerformance: teacherPerformance ?? NaN,
    });
    return true;
  }

  /** The step line: `common` (shared), the schedule's retire_opd/* metrics, then `tail` (timings), in that order. */
  line(common: MetricsLine, tail: Readonly<Record<string, number>>): MetricsLine {
    return { ...common, ...this.schedule.metrics(), ...tail };
  }
}
