// The experiment trainer: a small orchestrator over the stage modules in stages/ — demonstrations → SFT (λ_obs) →
// teacher GRPO with the skill, then S_T → student GRPO + λ_opd·OPD under the chosen schedule, validation feeding the
// gate → evaluation. It owns what spans stages: the run's state and policies, the stop/pause point at every step
// boundary, checkpoints (checkpointing.ts), the signal guard, and the summary (summary.ts). It emits typed events
// and knows nothing of a terminal or a UI. Randomness comes from seeds.ts's scheme, so resuming from a checkpoint
// (weights + Adam + schedule state + step) continues bit-identically on a deterministic backend.
import type { AgentEnv, Task } from '../../core/env/types';
import type { ExperimentConfig } from '../../core/experiment/config';
import type { RunSummary } from '../../core/experiment/summary';
import { LambdaSchedule } from '../../core/lambdaSchedule';
import { weightsFromHost } from '../hostTensor';
import { parameterSpecs, PolicyModel } from '../model';
import { modelConfigFor, type ModelConfig } from '../modelConfig';
import type { WeightRecord } from '../weights';
import { GpuError } from '../webgpuDevice';
import type { CheckpointContent, CheckpointStorage } from './checkpoint';
import { Checkpointer, readShared, type CheckpointReason } from './checkpointing';
import type { EnginePort, RolloutOutput, TrainerOptimizer } from './enginePort';
import { liveEpisode, type LiveEpisode } from './liveEpisode';
import { NonFiniteError, STAGE_NAMES, type StageName, type TrainerEventSink } from './events';
import { Followers, type FollowerSpec } from './followers';
import { modelInitSeed } from './seeds';
import { NoTrainingSignalError, SignalGuard } from './signalGuard';
import { demonstrationsOf } from './stages/demonstrations';
import { runEvaluation, type EvaluationStageResult } from './stages/evaluation';
import { runSft } from './stages/sft';
import type { RunModels, SharedSnapshot, StageContext } from './stages/stageContext';
import { gateConfigOf, runStudent } from './stages/student';
import { runTeacher, teacherSteps } from './stages/teacher';
import { runSummary } from './summary';
import {
  checkCheckpointContent,
  freshCounters,
  RNG_SCHEME,
  TRAINER_STATE_VERSION,
  type TrainerState,
} from './trainerState';

export interface TrainerOptions {
  config: ExperimentConfig;
  env: AgentEnv;
  engine: EnginePort;
  storage: CheckpointStorage | null;
  onEvent: TrainerEventSink;
  /** a decoded checkpoint to continue from (its config must equal `config`) */
  resume?: CheckpointContent<TrainerState> | null;
  /** a trained teacher (e.g. shipped in public/): replaces the teacher stage's training */
  shippedTeacher?: WeightRecord[] | null;
  /** test hook: this loss term of this step becomes NaN */
  injectNonFinite?: { stage: StageName; step: number; term: string } | null;
  /**
   * On webgpu, queue a student step's next rollout while its statistics are read (default true; stages/student.ts).
   * Nothing is computed differently; false is the test that proves it.
   */
  overlapRollouts?: boolean;
  /** wall clock in ms (default performance.now / Date.now) */
  clock?: () => number;
  /**
   * The one control hook, awaited at every step boundary of every stage (after the step's event, before its
   * checkpoint; also at each stage start and between evaluation passes): a pause holds the run here, and a stop
   * requested meanwhile (requestStop) is honoured right after it returns.
   */
  atStepBoundary?: (stage: StageName, step: number) => Promise<void>;
  /**
   * Awaited between the decode steps of a validation rollout, inside a step (`step` is the last completed one): a
   * pause may hold the run there, so that it holds within one training step even when a long validation is going.
   * Nothing is computed differently (the smoke-run pins hold with it); a stop still waits for the step boundary.
   */
  withinStep?: (stage: StageName, step: number) => Promise<void>;
  /**
   * One episode of the current training rollout (teacher and student stages), at most once every `everyMs` of the
   * clock, for a live view of what the agent does; not a trainer event (events and pins are unchanged by it).
   */
  liveEpisodes?: { everyMs: number; sink: (episode: LiveEpisode) => void } | null;
  /**
   * Runs that ride along this run's student stage (followers.ts), asked for when the student stage starts from its
   * first step; each follower's config must have this run's trajectory key (core/experiment/trajectoryKey.ts).
   */
  followers?: (() => Promise<FollowerSpec[]>) | null;
  /**
   * `resume` continues a run whose events so far were already emitted (a follower that left its leader): the
   * resumed stage's start is not announced again, so the event stream reads as one run's.
   */
  continuation?: boolean;
}

class StopSignal extends Error {}

/**
 * Give the event loop a turn, so a Ctrl-C handler (Node) or a Stop message (worker) queued during a step runs
 * before the next one. Node: two setImmediate turns, so at least one poll phase (where signals arrive) passes
 * whatever phase the step ended in; elsewhere one macrotask. Costs microseconds.
 */
async function yieldToEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate;
  if (typeof immediate === 'function') {
    await new Promise<void>((r) => immediate(r));
    await new Promise<void>((r) => immediate(r));
  } else {
    await new Promise<void>((r) => setTimeout(r, 0));
  }
}

/** A stage as data: its name, how many steps it trains, and its body from a given completed step. */
interface Stage {
  name: StageName;
  steps(ctx: StageContext): number;
  run(ctx: StageContext, from: number): Promise<void>;
}

export class Trainer {
  private readonly cfg: ExperimentConfig;
  private readonly emit: TrainerEventSink;
  /** clock time of the last live episode handed out (TrainerOptions.liveEpisodes) */
  private lastLiveEpisodeMs: number | null = null;
  private readonly clock: () => number;
  private readonly modelConfig: ModelConfig;
  private readonly checkpointer: Checkpointer;
  private readonly ctx: StageContext;
  private readonly state: TrainerState;
  private stopRequested = false;
  private models: RunModels = {};
  private optimizer: TrainerOptimizer | null = null;
  private evaluation: EvaluationStageResult | null = null;
  /** runs riding along the student stage (followers.ts), while any does */
  private followers: Followers | null = null;
  private runStartMs = 0;
  private wallAtStart = 0;
  /** ms of periodic checkpoints not yet reported on a step line (StageContext.takeCheckpointMs) */
  private checkpointMs = 0;

  private readonly stages: Stage[] = [
    { name: 'demonstrations', steps: () => 0, run: async (ctx) => void demonstrationsOf(ctx) },
    { name: 'sft', steps: (ctx) => ctx.cfg.sft.steps, run: runSft },
    { name: 'teacher', steps: teacherSteps, run: runTeacher },
    { name: 'student', steps: (ctx) => ctx.cfg.student.steps, run: runStudent },
    {
      name: 'evaluation',
      steps: () => 0,
      run: async (ctx) => {
        this.evaluation = await runEvaluation(ctx);
      },
    },
  ];

  constructor(private readonly opts: TrainerOptions) {
    this.cfg = opts.config;
    // every step event passes the signal guard first: GPU errors and all-zero first steps stop the run
    const guard = new SignalGuard();
    this.emit = (e) => {
      if (e.type === 'step') guard.observe(e.stage, e.step, e.totalSteps, e.metrics);
      opts.onEvent(e);
    };
    this.clock = opts.clock ?? (() => (typeof performance !== 'undefined' ? performance.now() : Date.now()));
    this.modelConfig = modelConfigFor(this.cfg, opts.env);
    this.checkpointer = new Checkpointer(opts.storage, this.cfg, this.modelConfig, this.emit);
    // a resumed checkpoint must hold every weight and optimizer entry its (stage, step) implies: never re-init
    if (opts.resume) checkCheckpointContent(opts.resume, parameterSpecs(this.modelConfig), 'checkpoint');
    this.state = opts.resume
      ? structuredClone(opts.resume.state)
      : {
          version: TRAINER_STATE_VERSION,
          config: this.cfg,
          stage: 'demonstrations',
          step: 0,
          rng: { scheme: RNG_SCHEME, seed: this.cfg.seed },
          sft: null,
          teacherPerformance: null,
          schedule: null,
          counters: freshCounters(),
          wallSeconds: 0,
        };
    this.ctx = this.stageContext();
  }

  /**
   * Ask the run to stop at the next step boundary (Ctrl-C, the page's Stop): within one training step in every
   * stage, evaluation included; it writes a checkpoint first (when it has storage) and ends 'interrupted'.
   */
  requestStop(): void {
    this.stopRequested = true;
  }

  async run(): Promise<RunSummary> {
    this.runStartMs = this.clock();
    this.wallAtStart = this.state.wallSeconds;
    let status: RunSummary['status'] = 'completed';
    let error: string | null = null;
    try {
      this.restoreModels();
      await this.runStages();
    } catch (e) {
      if (e instanceof StopSignal) {
        status = 'interrupted';
      } else {
        status = 'failed';
        error = (e as Error).message;
        this.emit({
          type: 'error',
          message: error,
          stage: this.state.stage,
          step: e instanceof NonFiniteError || e instanceof NoTrainingSignalError ? e.step : this.state.step,
          term: e instanceof NonFiniteError ? e.term : e instanceof GpuError ? e.kernel : null,
        });
        // a halted run (bad numbers, a GPU that refused, nothing computed) ends with a failed summary
        if (!(e instanceof NonFiniteError || e instanceof NoTrainingSignalError || e instanceof GpuError)) throw e;
      }
    } finally {
      this.followers?.abandon(
        status === 'interrupted' ? { kind: 'stopped' } : { kind: 'lost', reason: error ?? 'the leader failed' },
      );
      this.setFollowers(null);
      this.closeOptimizer();
    }
    const summary = runSummary({
      config: this.cfg,
      state: this.state,
      schedule: this.ctx.schedule,
      status,
      error,
      evaluation: this.evaluation,
      wallSeconds: this.wallSeconds(),
    });
    this.emit({ type: 'done', summary });
    return summary;
  }

  /** Release every model (variables are engine-global; always call, also after a failure). */
  dispose(): void {
    for (const m of Object.values(this.models) as (PolicyModel | undefined)[]) m?.dispose();
    this.models = {};
    this.closeOptimizer();
  }

  /** The stages from the state's (stage, step) on; a stage-end checkpoint between training stages. */
  private async runStages(): Promise<void> {
    const startIndex = STAGE_NAMES.indexOf(this.state.stage);
    for (let i = startIndex; i < this.stages.length; i++) {
      const stage = this.stages[i]!;
      const from = i === startIndex ? this.state.step : 0;
      this.state.stage = stage.name;
      this.state.step = from;
      if (stage.name === 'teacher' && this.cfg.student.schedule === 'none') {
        // pure GRPO never runs the teacher: no teacher to train, no S_T to measure
        this.emit({
          type: 'stage',
          stage: stage.name,
          status: 'skipped',
          totalSteps: 0,
          detail: 'schedule none never runs the teacher',
        });
        continue;
      }
      // mid-stage (a resumed run, from > 0) the checkpoint being resumed is this very point, with its optimizer
      // state, which does not exist yet here: stop without overwriting it
      await this.stopPoint(from === 0);
      const totalSteps = stage.steps(this.ctx);
      const start = { type: 'stage', stage: stage.name, status: 'start', totalSteps } as const;
      if (!(this.opts.continuation && i === startIndex)) this.emit(start);
      if (stage.name === 'student' && from === 0 && this.opts.followers) {
        const specs = await this.opts.followers();
        if (specs.length > 0) this.setFollowers(new Followers(specs, this.cfg, this.state, this.modelConfig));
        this.followers?.emit(start);
      }
      await stage.run(this.ctx, from);
      if (stage.name === 'student' && this.followers) {
        await this.followers.leaveAll('the student stage ended', this.sharedSnapshot());
        this.setFollowers(null);
      }
      this.emit({ type: 'stage', stage: stage.name, status: 'end', totalSteps });
      const next = STAGE_NAMES[i + 1];
      if (next && next !== 'evaluation' && stage.name !== 'demonstrations') {
        this.state.stage = next;
        this.state.step = 0;
        this.closeOptimizer();
        await this.checkpoint('stage-end');
      }
    }
  }

  /** What the stage modules work with (stages/stageContext.ts), bound to this run. */
  private stageContext(): StageContext {
    return {
      cfg: this.cfg,
      env: this.opts.env,
      engine: this.opts.engine,
      emit: this.emit,
      clock: this.clock,
      state: this.state,
      models: this.models,
      shippedTeacher: this.opts.shippedTeacher ?? null,
      schedule: null,
      demos: null,
      followers: null,
      sharedSnapshot: () => this.sharedSnapshot(),
      newModel: (name) => new PolicyModel(this.modelConfig, modelInitSeed(this.cfg.seed), name),
      openOptimizer: (policy, lr, from) => this.openOptimizer(policy, lr, from),
      afterStep: (step) => this.afterStep(step),
      takeCheckpointMs: () => {
        const ms = this.checkpointMs;
        this.checkpointMs = 0;
        return ms;
      },
      stopPoint: () => this.stopPoint(),
      liveEpisode: (stage, step, tasks, rollout, teacherActive) =>
        this.liveEpisode(stage, step, tasks, rollout, teacherActive),
      withinStep: () => this.opts.withinStep?.(this.state.stage, this.state.step) ?? Promise.resolve(),
      overlapRollouts: this.opts.overlapRollouts ?? true,
      injected: (stage, step) => {
        const f = this.opts.injectNonFinite;
        return f && f.stage === stage && f.step === step ? f.term : null;
      },
    };
  }

  /** Hand one episode of this rollout to the live-episode sink, when one is set and `everyMs` has passed. */
  private liveEpisode(
    stage: 'teacher' | 'student',
    step: number,
    tasks: readonly Task[],
    rollout: RolloutOutput,
    teacherActive: boolean,
  ): void {
    const live = this.opts.liveEpisodes;
    if (!live) return;
    const now = this.clock();
    if (this.lastLiveEpisodeMs !== null && now - this.lastLiveEpisodeMs < live.everyMs) return;
    this.lastLiveEpisodeMs = now;
    // a different task's episode each time: the first episode of group (step mod groups); a group's G episodes are
    // consecutive rows of one task
    const groups = Math.max(1, new Set(tasks.map((t) => t.index)).size);
    const groupSize = Math.max(1, Math.floor(tasks.length / groups));
    const row = (step % groups) * groupSize;
    live.sink(liveEpisode(this.opts.env, stage, step, tasks, rollout, row, teacherActive));
  }

  /** The one stop point, at every step boundary: a turn of the event loop, the control hook, then a stop request. */
  private async stopPoint(writeCheckpoint = true): Promise<void> {
    await yieldToEventLoop();
    await this.opts.atStepBoundary?.(this.state.stage, this.state.step);
    if (this.stopRequested) {
      if (writeCheckpoint) await this.checkpoint('interrupt');
      throw new StopSignal();
    }
  }

  /** After each completed step: the stop point (checkpoint, then stop), then the periodic checkpoint. */
  private async afterStep(step: number): Promise<void> {
    this.state.step = step;
    const every = this.cfg.runtime.checkpointEvery;
    await this.stopPoint();
    if (every > 0 && step % every === 0) {
      const c0 = this.clock();
      await this.checkpoint('periodic');
      this.checkpointMs += this.clock() - c0;
    }
  }

  private wallSeconds(): number {
    return this.wallAtStart + (this.clock() - this.runStartMs) / 1000;
  }

  private async checkpoint(reason: CheckpointReason): Promise<void> {
    // one readback of the weights and Adam state serves this run's checkpoint and every follower's
    const host = await readShared(this.sharedSnapshot());
    await this.checkpointer.write(reason, host, { state: this.state, schedule: this.ctx.schedule });
    if (reason !== 'stage-end') await this.followers?.checkpoint(reason, host);
  }

  /** The runs riding along the student stage, for the trainer and the student stage alike. */
  private setFollowers(followers: Followers | null): void {
    this.followers = followers;
    this.ctx.followers = followers;
  }

  /** What this run's checkpoint shares with its followers': the policies, the optimizer, the wall time. */
  private sharedSnapshot(): SharedSnapshot {
    return { models: this.models, optimizer: this.optimizer, wallSeconds: this.wallSeconds() };
  }

  /** π_init always; the checkpoint's policies and schedule on a resumed run. */
  private restoreModels(): void {
    const r = this.opts.resume;
    this.models.init = this.ctx.newModel('init');
    if (!r) return;
    for (const [name, host] of Object.entries(r.models)) {
      if (name !== 'init' && name !== 'teacher' && name !== 'student') continue;
      const m = name === 'init' ? this.models.init : (this.models[name] = this.ctx.newModel(name));
      m.setWeights(weightsFromHost(host));
    }
    if (this.state.schedule)
      this.ctx.schedule = LambdaSchedule.fromJSON(
        this.state.schedule,
        this.cfg.student.schedule,
        gateConfigOf(this.ctx),
      );
  }

  private async openOptimizer(policy: PolicyModel, lr: number, from: number): Promise<TrainerOptimizer> {
    this.closeOptimizer();
    const opt = this.opts.engine.createOptimizer(lr, policy.trainableVariables);
    const saved = this.opts.resume?.optimizer;
    // only the stage a checkpoint was taken in resumes with from > 0, and its optimizer is the saved one
    if (from > 0 && saved && Object.keys(saved).length > 0) await opt.setState(saved);
    this.optimizer = opt;
    return opt;
  }

  private closeOptimizer(): void {
    this.optimizer?.dispose();
    this.optimizer = null;
  }
}
