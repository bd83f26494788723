// Followers: runs that ride along a leader's student stage instead of training it again. A follower has the
// leader's trajectory key (core/experiment/trajectoryKey.ts): its student steps compute exactly what the leader's
// compute for as long as its own λ_opd schedule plans each step as the leader's does (the same λ_opd, the teacher
// run or skipped). So the leader trains once, and each follower keeps only what is its own: its schedule and gate
// (fed the leader's gaps and validation scores), its counters, its events and step lines (the leader's with its own
// retire_opd/* metrics), and its periodic checkpoints (the leader's weights and Adam state with its own state.json).
// At the first step its schedule plans differently — RetireOPD's trigger for OPD throughout — or at the end of the
// student stage, it leaves: it is handed its state after the last shared step, in memory, and continues as a run of
// its own (a Trainer resumed from that state with `continuation`), whose logs then equal the run made alone.
import type { ExperimentConfig } from '../../core/experiment/config';
import { gateConfigFor } from '../../core/experiment/gateSettings';
import { trajectoryKeyOf } from '../../core/experiment/trajectoryKey';
import { LambdaSchedule } from '../../core/lambdaSchedule';
import type { StepPlan } from '../../core/retirementGate';
import type { ModelConfig } from '../modelConfig';
import type { CheckpointContent, CheckpointStorage } from './checkpoint';
import { checkpointContent, Checkpointer, readShared, type CheckpointReason, type HostShared } from './checkpointing';
import type { SharedSnapshot, StudentFollowers } from './stages/stageContext';
import type { MetricsLine, TrainerEvent, TrainerEventSink } from './events';
import type { TrainerCounters, TrainerState } from './trainerState';
import { StudentGate } from './studentGate';

/** How a follower's ride ended. */
export type FollowerEnd =
  /** it left the leader after student step `step`: continue `resume` with a Trainer ({ resume, continuation }) */
  | { kind: 'detached'; step: number; reason: string; resume: CheckpointContent<TrainerState> }
  /** the leader was stopped: the follower wrote its own interrupt checkpoint there (resume its folder later) */
  | { kind: 'stopped'; step: number }
  /** the leader failed before the follower left: nothing of the follower is trustworthy; run it alone */
  | { kind: 'lost'; reason: string };

export interface FollowerSpec {
  config: ExperimentConfig;
  /** where its periodic and interrupt checkpoints go (its own run folder) */
  storage: CheckpointStorage | null;
  /** its events, as the run made alone would emit them, up to where it leaves */
  onEvent: TrainerEventSink;
  end(outcome: FollowerEnd): void;
}

interface Rider {
  readonly spec: FollowerSpec;
  readonly state: TrainerState;
  /** its schedule, fed the leader's gaps and scores; its events as the run alone emits them */
  readonly gate: StudentGate;
  readonly checkpointer: Checkpointer;
  /** its own tokens and env steps at retirement (the leader's counters are otherwise its own) */
  atRetirement: { tokens: number; envSteps: number } | null;
}

export class Followers implements StudentFollowers {
  private riders: Rider[];

  /**
   * Followers of a leader whose student stage starts now (`leaderState` at student step 0). Throws when a
   * follower's trajectory key differs from the leader's: it would not compute what the leader computes.
   */
  constructor(
    specs: readonly FollowerSpec[],
    leaderConfig: ExperimentConfig,
    leaderState: TrainerState,
    private readonly modelConfig: ModelConfig,
  ) {
    const key = trajectoryKeyOf(leaderConfig);
    this.riders = specs.map((spec) => {
      if (trajectoryKeyOf(spec.config) !== key)
        throw new Error(`follower ${spec.config.name}: its trajectory key differs from the leader's`);
      const state: TrainerState = { ...structuredClone(leaderState), config: spec.config, schedule: null };
      const schedule = new LambdaSchedule(spec.config.student.schedule, this.gateConfig(spec.config, state));
      return {
        spec,
        state,
        gate: new StudentGate(schedule, spec.onEvent),
        checkpointer: new Checkpointer(spec.storage, spec.config, modelConfig, spec.onEvent),
        atRetirement: null,
      };
    });
  }

  /** How many followers still ride. */
  get size(): number {
    return this.riders.length;
  }

  /** An event every follower's run alone emits at this point too (the student stage's start). */
  emit(event: TrainerEvent): void {
    for (const r of this.riders) r.spec.onEvent(event);
  }

  /**
   * Student step `step` begins with the leader's `plan`: each follower's schedule begins it too, and a follower
   * that plans it differently leaves with its state after step `step − 1` (its schedule as before this call).
   */
  async beginStep(step: number, plan: StepPlan, shared: () => SharedSnapshot): Promise<void> {
    for (const r of [...this.riders]) {
      const before = r.gate.schedule.toJSON();
      const own = r.gate.beginStep(step);
      if (own.opdCoef === plan.opdCoef && own.teacherNeeded === plan.teacherNeeded) continue;
      r.gate.schedule = LambdaSchedule.fromJSON(
        before,
        r.spec.config.student.schedule,
        this.gateConfig(r.spec.config, r.state),
      );
      const what = (p: StepPlan): string => `λ_opd ${p.opdCoef}, ${p.teacherNeeded ? 'teacher' : 'no teacher'}`;
      const reason = `at student step ${step} schedule ${r.gate.schedule.name} plans ${what(own)}, the leader's ${what(plan)}`;
      this.leave(r, reason, await readShared(shared()));
    }
  }

  /** The gap the leader's teacher forward measured at `step`: every follower's gate observes it. */
  observeGap(step: number, gap: number): void {
    for (const r of this.riders) r.gate.observeGap(step, gap);
  }

  /** The leader's validation score at `step`: every follower's gate is evaluated on it. */
  validate(step: number, score: number): void {
    for (const r of this.riders) r.gate.validate(step, score);
  }

  /**
   * The end of student step `step`: each follower's retirement (when its gate retired the teacher at this step),
   * counters, and step line — the leader's `common` part, its own retire_opd/* metrics, then the leader's `tail`
   * (timings), in the order the run made alone writes them.
   */
  endStep(
    step: number,
    totalSteps: number,
    counters: TrainerCounters,
    common: MetricsLine,
    tail: Readonly<Record<string, number>>,
  ): void {
    for (const r of this.riders) {
      if (r.gate.retiredAt(step, r.state.teacherPerformance))
        r.atRetirement = { tokens: counters.sampledTokens, envSteps: counters.envSteps };
      r.state.counters = {
        ...counters,
        tokensAtRetirement: r.atRetirement?.tokens ?? null,
        envStepsAtRetirement: r.atRetirement?.envSteps ?? null,
      };
      r.state.step = step;
      r.spec.onEvent({ type: 'step', stage: 'student', step, totalSteps, metrics: r.gate.line(common, tail) });
    }
  }

  /** The leader wrote a checkpoint (periodic or interrupt): each follower writes its own at the same step. */
  async checkpoint(reason: CheckpointReason, host: HostShared): Promise<void> {
    for (const r of this.riders)
      await r.checkpointer.write(reason, host, { state: r.state, schedule: r.gate.schedule });
  }

  /** The student stage ended: every follower still riding leaves after its last step. */
  async leaveAll(reason: string, shared: SharedSnapshot): Promise<void> {
    const host = await readShared(shared);
    for (const r of [...this.riders]) this.leave(r, reason, host);
  }

  /** The leader stopped (its interrupt checkpoint written, followers' too) or failed: end every ride. */
  abandon(how: { kind: 'stopped' } | { kind: 'lost'; reason: string }): void {
    const riders = this.riders;
    this.riders = [];
    for (const r of riders) r.spec.end(how.kind === 'stopped' ? { kind: 'stopped', step: r.state.step } : how);
  }

  private leave(r: Rider, reason: string, host: HostShared): void {
    const resume = checkpointContent(host, { state: r.state, schedule: r.gate.schedule }, this.modelConfig);
    this.riders = this.riders.filter((x) => x !== r);
    r.spec.end({ kind: 'detached', step: r.state.step, reason, resume });
  }

  private gateConfig(cfg: ExperimentConfig, state: TrainerState) {
    return gateConfigFor(cfg, state.teacherPerformance);
  }
}
