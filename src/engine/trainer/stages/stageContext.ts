// What every stage module works with: the run's config, environment and engine, its mutable state (what a
// checkpoint holds), the policies and cross-stage pieces, and the trainer's step-boundary services. The trainer
// (trainer.ts) builds one per run; a stage never touches storage, the event sink's consumers or another stage.
import type { AgentEnv, Task } from '../../../core/env/types';
import type { ExperimentConfig } from '../../../core/experiment/config';
import type { LambdaSchedule } from '../../../core/lambdaSchedule';
import type { PolicyModel } from '../../model';
import type { WeightRecord } from '../../weights';
import type { EnginePort, RolloutOutput, TrainerOptimizer } from '../enginePort';
import type { StageName, TrainerEventSink } from '../events';
import type { StepPlan } from '../../../core/retirementGate';
import type { MetricsLine } from '../events';
import type { TrainerCounters } from '../trainerState';
import type { TrainerState } from '../trainerState';
import type { Demonstrations } from './demonstrations';

/** The run's policies, created as their stage first needs them: π_init (SFT), the teacher, the student. */
export interface RunModels {
  init?: PolicyModel;
  teacher?: PolicyModel;
  student?: PolicyModel;
  /** self-distill's frozen copy of the student (../selfTeacher.ts) */
  selfTeacher?: PolicyModel;
}

/** What a checkpoint of the run shares with its followers': the policies, the stage's optimizer, the wall time. */
export interface SharedSnapshot {
  models: RunModels;
  optimizer: TrainerOptimizer | null;
  wallSeconds: number;
}

/** The runs riding along the student stage (followers.ts's Followers), as the student stage drives them. */
export interface StudentFollowers {
  beginStep(step: number, plan: StepPlan, shared: () => SharedSnapshot): Promise<void>;
  observeGap(step: number, gap: number): void;
  validate(step: number, score: number): void;
  endStep(
    step: number,
    totalSteps: number,
    counters: TrainerCounters,
    common: MetricsLine,
    tail: Readonly<Record<string, number>>,
  ): void;
}

export interface StageContext {
  readonly cfg: ExperimentConfig;
  readonly env: AgentEnv;
  readonly engine: EnginePort;
  /** every event goes through the trainer's signal guard first */
  readonly emit: TrainerEventSink;
  /** wall clock in ms */
  readonly clock: () => number;
  /** the run's state (what state.json of a checkpoint holds); stages update their parts of it */
  readonly state: TrainerState;
  readonly models: RunModels;
  /** a trained teacher given to the run: the teacher stage then trains nothing */
  readonly shippedTeacher: WeightRecord[] | null;
  /** the λ_opd schedule and its gate, once the student stage has begun (or restored from a checkpoint) */
  schedule: LambdaSchedule | null;
  demos: Demonstrations | null;
  /** runs riding along the student stage (followers.ts), while any does */
  followers: StudentFollowers | null;
  /** the policies, optimizer and wall time, as a checkpoint (or a follower leaving) takes them now */
  sharedSnapshot(): SharedSnapshot;
  /** a fresh policy with the run's initial weights, named for the tfjs variable scope */
  newModel(name: string): PolicyModel;
  /**
   * The stage's optimizer over `policy`: fresh, or with the checkpoint's saved state when the stage resumes mid-way
   * (from > 0). The trainer owns it (checkpoints read it; it is disposed at the stage's end).
   */
  openOptimizer(policy: PolicyModel, learningRate: number, from: number): Promise<TrainerOptimizer>;
  /**
   * awaited inside a long computation of a step (between the decode steps of a validation rollout): a pause may hold
   * the run there, within the step; it changes no value
   */
  withinStep(): Promise<void>;
  /** offer this training rollout's episode to the live view (the trainer decides whether one is due) */
  liveEpisode(
    stage: 'teacher' | 'student',
    step: number,
    tasks: readonly Task[],
    rollout: RolloutOutput,
    teacherActive: boolean,
  ): void;
  /** After each completed step: the control hook (pause), a requested stop (checkpoint, then stop), periodic checkpoint. */
  afterStep(step: number): Promise<void>;
  /** ms spent writing periodic checkpoints since the last call (then 0): the next step line's time/checkpoint_s */
  takeCheckpointMs(): number;
  /** The stop hook alone, between parts of a stage that are not training steps (evaluation passes). */
  stopPoint(): Promise<void>;
  /** webgpu: a GRPO step (student or teacher) queues the next step's rollout while its statistics are read (nextRollout.ts) */
  readonly overlapRollouts: boolean;
  /** test hook: the loss term to make NaN at this step, if any */
  injected(stage: StageName, step: number): string | null;
}
