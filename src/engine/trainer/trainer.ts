// The experiment trainer: demonstrations → SFT (λ_obs) → teacher GRPO with the skill → freeze and measure S_T →
// student GRPO + λ_opd·OPD under the chosen schedule, validation feeding the gate → evaluation (evaluationStage.ts).
// Stages are data (STAGES below: name, step count, body); the trainer emits typed events and knows nothing of a
// terminal or a UI. Every step draws its randomness from deriveRng(seed, stage, step, purpose), so resuming
// from a checkpoint (weights + Adam + schedule state + step) continues bit-identically on a deterministic backend.
import type { AgentEnv, Task } from '../../core/env/types';
import type { ExperimentConfig } from '../../core/experiment/config';
import type { PolicyEvaluation, RunSummary } from '../../core/experiment/summary';
import { LambdaSchedule } from '../../core/lambdaSchedule';
import { hashInts } from '../../core/rng';
import { parameterSpecs, PolicyModel } from '../model';
import type { ModelConfig } from '../modelConfig';
import type { WeightRecord } from '../weights';
import {
  encodeCheckpoint,
  firstNonFinite,
  sealCheckpoint,
  type CheckpointContent,
  type CheckpointStorage,
  type HostTensor,
} from './checkpoint';
import type { EnginePort, TrainerOptimizer } from './enginePort';
import { runEvaluationStage, type EvaluationStageResult } from './evaluationStage';
import { NonFiniteError, STAGE_NAMES, type MetricsLine, type StageName, type TrainerEventSink } from './events';
import { policyUpdate } from './policyUpdate';
import { rolloutMetrics } from './rolloutMetrics';
import { NoTrainingSignalError, SignalGuard } from './signalGuard';
import { GpuError } from '../webgpuDevice';
import { buildDemonstrations, evaluateProbes, sftStep, type Demonstrations } from './sftStage';
import {
  checkCheckpointContent,
  freshCounters,
  RNG_SCHEME,
  TRAINER_STATE_VERSION,
  type TrainerState,
} from './trainerState';

const STAGE_SALT: Record<StageName, number> = { demonstrations: 11, sft: 12, teacher: 13, student: 14, evaluation: 15 };
const PURPOSE = { tasks: 1, sample: 2, validation: 3, test: 4, probe: 5 } as const;
/** task indices of each stage's training draws start here, so teacher and student see different tasks */
const TASK_OFFSET: Record<StageName, number> = {
  demonstrations: 0,
  sft: 0,
  teacher: 1_000_000,
  student: 2_000_000,
  evaluation: 0,
};

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
  /** wall clock in ms (default performance.now / Date.now) */
  clock?: () => number;
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

function toHostRecords(records: readonly WeightRecord[]): Record<string, HostTensor> {
  const out: Record<string, HostTensor> = {};
  for (const r of records) out[r.name] = { shape: r.shape, dtype: 'float32', data: r.data };
  return out;
}

export function fromHostRecords(host: Record<string, HostTensor>): WeightRecord[] {
  return Object.entries(host).map(([name, h]) => ({ name, shape: h.shape, data: Float32Array.from(h.data) }));
}

export function modelConfigFor(cfg: ExperimentConfig, env: AgentEnv): ModelConfig {
  return {
    vocabSize: env.vocab.size,
    contextTokens: env.limits.contextTokens + env.limits.skillTokens,
    width: cfg.model.width,
    layers: cfg.model.layers,
    heads: cfg.model.heads,
    mlp: cfg.model.mlp,
    tiedHead: false,
  };
}

export class Trainer {
  private readonly cfg: ExperimentConfig;
  private readonly emit: TrainerEventSink;
  private readonly clock: () => number;
  private state: TrainerState;
  private stopRequested = false;
  private models: { init?: PolicyModel; teacher?: PolicyModel; student?: PolicyModel } = {};
  private optimizer: TrainerOptimizer | null = null;
  private schedule: LambdaSchedule | null = null;
  private demos: Demonstrations | null = null;
  private readonly modelConfig: ModelConfig;
  private runStartMs = 0;
  private wallAtStart = 0;

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
  }

  /**
   * Ask the run to stop at the next step boundary (Ctrl-C, the page's Stop): within one training step in every
   * stage, evaluation included; it writes a checkpoint first (when it has storage) and ends 'interrupted'.
   */
  requestStop(): void {
    this.stopRequested = true;
  }

  /** The one stop hook, at every step boundary: a turn of the event loop, then honour a stop request. */
  private async stopPoint(writeCheckpoint = true): Promise<void> {
    await yieldToEventLoop();
    if (this.stopRequested) {
      if (writeCheckpoint) await this.checkpoint('interrupt');
      throw new StopSignal();
    }
  }

  /** The stages as data: name, number of steps, body (from a given completed step). */
  private readonly stages: { name: StageName; steps: () => number; run: (from: number) => Promise<void> }[] = [
    { name: 'demonstrations', steps: () => 0, run: async () => this.ensureDemos() },
    { name: 'sft', steps: () => this.cfg.sft.steps, run: (from) => this.runSft(from) },
    {
      name: 'teacher',
      steps: () => (this.opts.shippedTeacher ? 0 : this.cfg.teacher.steps),
      run: (from) => this.runTeacher(from),
    },
    { name: 'student', steps: () => this.cfg.student.steps, run: (from) => this.runStudent(from) },
    { name: 'evaluation', steps: () => 0, run: async () => undefined },
  ];

  async run(): Promise<RunSummary> {
    this.runStartMs = this.clock();
    this.wallAtStart = this.state.wallSeconds;
    let status: RunSummary['status'] = 'completed';
    let error: string | null = null;
    let test: PolicyEvaluation | null = null;
    let evaluation: EvaluationStageResult | null = null;
    try {
      this.restoreModels();
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
        this.emit({ type: 'stage', stage: stage.name, status: 'start', totalSteps: stage.steps() });
        if (stage.name === 'evaluation') {
          evaluation = await this.runEvaluation();
          test = evaluation.test;
        } else {
          await stage.run(from);
        }
        this.emit({ type: 'stage', stage: stage.name, status: 'end', totalSteps: stage.steps() });
        const next = STAGE_NAMES[i + 1];
        if (next && next !== 'evaluation' && stage.name !== 'demonstrations') {
          this.state.stage = next;
          this.state.step = 0;
          this.optimizer?.dispose();
          this.optimizer = null;
          await this.checkpoint('stage-end');
        }
      }
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
      this.optimizer?.dispose();
      this.optimizer = null;
    }
    const summary = this.summary(status, error, test, evaluation);
    this.emit({ type: 'done', summary });
    return summary;
  }

  /** Release every model (variables are engine-global; always call, also after a failure). */
  dispose(): void {
    for (const m of Object.values(this.models)) m?.dispose();
    this.models = {};
    this.optimizer?.dispose();
    this.optimizer = null;
  }

  // ---------------------------------------------------------------- models, checkpoints

  private newModel(name: string): PolicyModel {
    return new PolicyModel(this.modelConfig, hashInts(this.cfg.seed, 0x1d17) >>> 0, name);
  }

  private restoreModels(): void {
    const r = this.opts.resume;
    this.models.init = this.newModel('init');
    if (!r) return;
    for (const [name, host] of Object.entries(r.models)) {
      if (name !== 'init' && name !== 'teacher' && name !== 'student') continue;
      const m = name === 'init' ? this.models.init : (this.models[name] = this.newModel(name));
      m.setWeights(fromHostRecords(host));
    }
    if (this.state.schedule)
      this.schedule = LambdaSchedule.fromJSON(this.state.schedule, this.cfg.student.schedule, this.gateConfig());
  }

  private async checkpoint(reason: 'periodic' | 'stage-end' | 'interrupt'): Promise<void> {
    const storage = this.opts.storage;
    if (!storage) return;
    const models: Record<string, Record<string, HostTensor>> = {};
    for (const [name, m] of Object.entries(this.models)) if (m) models[name] = toHostRecords(await m.getWeights());
    const state: TrainerState = {
      ...this.state,
      schedule: this.schedule ? this.schedule.toJSON() : null,
      wallSeconds: this.wallAtStart + (this.clock() - this.runStartMs) / 1000,
    };
    const optimizer = this.optimizer ? await this.optimizer.getState() : {};
    // only finite state becomes a checkpoint: NaN weights must never be "the last good checkpoint"
    const bad = firstNonFinite({ models, optimizer });
    if (bad !== null)
      throw new NonFiniteError(state.stage, state.step, 'weights', `${bad} holds NaN/Infinity; no checkpoint written`);
    const files = await encodeCheckpoint({
      models,
      optimizer,
      state,
      topology: { policy: this.modelConfig, models: Object.keys(models) },
    });
    await sealCheckpoint(files, { stage: state.stage, step: state.step }, storage.sha256?.bind(storage));
    const name = `${state.stage}-${String(state.step).padStart(6, '0')}`;
    await storage.write(name, files);
    this.emit({ type: 'checkpoint', name, stage: state.stage, step: state.step, reason });
    await this.pruneCheckpoints(storage, name);
  }

  /** Keep the newest runtime.keepCheckpoints mid-stage checkpoints (and every stage-start one, step 0). */
  private async pruneCheckpoints(storage: CheckpointStorage, newest: string): Promise<void> {
    const keep = this.cfg.runtime.keepCheckpoints;
    if (keep === 0) return;
    const order = (n: string): number => {
      const m = /^([a-z]+)-(\d+)$/.exec(n);
      return m ? STAGE_NAMES.indexOf(m[1] as StageName) * 1e7 + Number(m[2]) : -1;
    };
    const mid = (await storage.list())
      .filter((n) => order(n) >= 0 && !n.endsWith('-000000') && n !== newest)
      .sort((a, b) => order(a) - order(b));
    const excess = mid.length - (keep - 1);
    for (const n of mid.slice(0, Math.max(0, excess))) await storage.remove(n);
  }

  /** After each completed step: periodic checkpoint, and the stop request (checkpoint, then stop). */
  private async afterStep(step: number): Promise<void> {
    this.state.step = step;
    const every = this.cfg.runtime.checkpointEvery;
    await this.stopPoint();
    if (every > 0 && step % every === 0) await this.checkpoint('periodic');
  }

  private async resumeOptimizer(policy: PolicyModel, lr: number, from: number): Promise<TrainerOptimizer> {
    const opt = this.opts.engine.createOptimizer(lr, policy.trainableVariables);
    const saved = this.opts.resume?.optimizer;
    // only the stage a checkpoint was taken in resumes with from > 0, and its optimizer is the saved one
    if (from > 0 && saved && Object.keys(saved).length > 0) {
      await opt.setState(saved);
    }
    return opt;
  }

  private inject(stage: StageName, step: number): string | null {
    const f = this.opts.injectNonFinite;
    return f && f.stage === stage && f.step === step ? f.term : null;
  }

  // ---------------------------------------------------------------- stages

  private ensureDemos(): void {
    if (!this.demos) this.demos = buildDemonstrations(this.opts.env, this.cfg);
  }

  private async runSft(from: number): Promise<void> {
    this.ensureDemos();
    const demos = this.demos!;
    const init = this.models.init!;
    if (from === 0) {
      const base = await evaluateProbes(init, demos.heldOut);
      this.state.sft = {
        observationCeBase: base.observationCe,
        actionCeBase: base.actionCe,
        observationCe: base.observationCe,
        actionCe: base.actionCe,
        gradientCosineLast: null,
      };
    }
    const steps = this.cfg.sft.steps;
    if (steps === 0) return;
    this.optimizer = await this.resumeOptimizer(init, this.cfg.sft.learningRate, from);
    for (let k = from + 1; k <= steps; k++) {
      const t0 = this.clock();
      const m = await sftStep({
        model: init,
        optimizer: this.optimizer,
        demos,
        cfg: this.cfg,
        step: k,
        seed: hashInts(this.cfg.seed, STAGE_SALT.sft, k, PURPOSE.tasks),
        injectNonFinite: this.inject('sft', k),
      });
      if (m['sft/grad_cosine'] !== undefined && this.state.sft)
        this.state.sft.gradientCosineLast = m['sft/grad_cosine'];
      this.emit({
        type: 'step',
        stage: 'sft',
        step: k,
        totalSteps: steps,
        metrics: { step: k, ...m, 'time/step_ms': this.clock() - t0 },
      });
      await this.afterStep(k);
    }
    const after = await evaluateProbes(init, demos.heldOut);
    if (this.state.sft) {
      this.state.sft.observationCe = after.observationCe;
      this.state.sft.actionCe = after.actionCe;
    }
  }

  private trainTasks(stage: StageName, step: number, count: number): Task[] {
    const base = TASK_OFFSET[stage] + (step - 1) * count;
    return Array.from({ length: count }, (_, j) => this.opts.env.task('train', base + j));
  }

  private repeat(tasks: readonly Task[], g: number): Task[] {
    return tasks.flatMap((t) => Array.from({ length: g }, () => t));
  }

  /**
   * A validation score (the gate's S, and S_T for the teacher in its skill view): one sample per validation task
   * at temperature 1 with the same sampling seed every time, scored with student.validationMetric.
   */
  private async validationScore(policy: PolicyModel, withSkill: boolean): Promise<number> {
    const n = this.cfg.student.validationTasks;
    const tasks = Array.from({ length: n }, (_, i) => this.opts.env.task('validation', i));
    const r = await this.opts.engine.rollout({
      policy,
      tasks,
      withSkill,
      temperature: 1,
      seed: hashInts(this.cfg.seed, PURPOSE.validation),
    });
    let s = 0;
    for (let i = 0; i < n; i++)
      s += this.cfg.student.validationMetric === 'success_rate' ? (r.success[i] as number) : (r.reward[i] as number);
    return s / n;
  }

  private async runTeacher(from: number): Promise<void> {
    const init = this.models.init!;
    if (!this.models.teacher) {
      this.models.teacher = this.newModel('teacher');
      if (this.opts.shippedTeacher) this.models.teacher.setWeights(this.opts.shippedTeacher);
      else this.models.teacher.copyWeightsFrom(init);
    }
    const teacher = this.models.teacher;
    const steps = this.opts.shippedTeacher ? 0 : this.cfg.teacher.steps;
    const g = this.cfg.teacher.grpo;
    if (steps > 0) this.optimizer = await this.resumeOptimizer(teacher, g.learningRate, from);
    for (let k = from + 1; k <= steps; k++) {
      const t0 = this.clock();
      const tasks = this.repeat(this.trainTasks('teacher', k, g.tasksPerStep), g.groupSize);
      const r = await this.opts.engine.rollout({
        policy: teacher,
        tasks,
        withSkill: true,
        temperature: g.temperature,
        seed: hashInts(this.cfg.seed, STAGE_SALT.teacher, k, PURPOSE.sample),
      });
      const u = await policyUpdate({
        stage: 'teacher',
        step: k,
        policy: teacher,
        optimizer: this.optimizer!,
        rollout: r,
        tasks,
        groupSize: g.groupSize,
        grpo: g,
        withSkill: true,
        opd: null,
        reference: g.klBeta > 0 ? init : null,
        injectNonFinite: this.inject('teacher', k),
      });
      this.emit({
        type: 'step',
        stage: 'teacher',
        step: k,
        totalSteps: steps,
        metrics: { step: k, ...rolloutMetrics(r), ...u.metrics, 'time/step_ms': this.clock() - t0 },
      });
      await this.afterStep(k);
    }
    // frozen from here on; S_T on the validation split with the gate's metric
    let sT = await this.validationScore(teacher, true);
    if (!(sT > 0)) {
      const floor = 1 / (2 * this.cfg.student.validationTasks);
      this.emit({
        type: 'warning',
        message: `teacher validation score S_T = ${sT} is not > 0; the gate needs S_T > 0, using ${floor} (half of one success) instead`,
      });
      sT = floor;
    }
    this.state.teacherPerformance = sT;
  }

  private gateConfig() {
    const g = this.cfg.student.gate;
    return {
      opd_coef: this.cfg.student.lambdaOpd,
      teacher_performance: this.state.teacherPerformance ?? 1,
      window_size: g.windowSize,
      alignment_threshold: g.alignmentThreshold,
      competence_threshold: g.competenceThreshold,
      denominator_epsilon: g.denominatorEpsilon,
    };
  }

  private async runStudent(from: number): Promise<void> {
    const init = this.models.init!;
    const teacher = this.models.teacher;
    if (!this.models.student) {
      this.models.student = this.newModel('student');
      this.models.student.copyWeightsFrom(init);
    }
    const student = this.models.student;
    this.schedule ??= new LambdaSchedule(this.cfg.student.schedule, this.gateConfig());
    const schedule = this.schedule;
    const sc = this.cfg.student;
    const g = sc.grpo;
    const c = this.state.counters;
    this.optimizer = await this.resumeOptimizer(student, g.learningRate, from);
    for (let k = from + 1; k <= sc.steps; k++) {
      const t0 = this.clock();
      const wasRetired = schedule.retired;
      const plan = schedule.beginStep(k);
      const tasks = this.repeat(this.trainTasks('student', k, g.tasksPerStep), g.groupSize);
      const r = await this.opts.engine.rollout({
        policy: student,
        tasks,
        withSkill: false,
        temperature: g.temperature,
        seed: hashInts(this.cfg.seed, STAGE_SALT.student, k, PURPOSE.sample),
      });
      const u = await policyUpdate({
        stage: 'student',
        step: k,
        policy: student,
        optimizer: this.optimizer,
        rollout: r,
        tasks,
        groupSize: g.groupSize,
        grpo: g,
        withSkill: false,
        opd: plan.teacherNeeded && teacher ? { teacher, coef: plan.opdCoef, estimator: sc.estimator } : null,
        reference: g.klBeta > 0 ? init : null,
        injectNonFinite: this.inject('student', k),
      });
      c.sampledTokens += r.sampledTokens;
      c.envSteps += r.envSteps;
      const line: MetricsLine = { step: k, ...rolloutMetrics(r), ...u.metrics };
      if (u.gap !== null) {
        c.teacherForwardRun++;
        line['opd/teacher_student_gap_mean'] = u.gap;
        const w = schedule.observeGap(k, u.gap);
        if (w) this.emit({ type: 'window', step: k, window: w });
      }
      let validationMs = 0;
      if (k % sc.validationEvery === 0) {
        const v0 = this.clock();
        const score = await this.validationScore(student, false);
        validationMs = this.clock() - v0;
        line['time/validation_ms'] = validationMs;
        line['val/success_rate'] = score;
        c.validationLast = score;
        c.validationBest = Math.max(c.validationBest ?? -Infinity, score);
        const ev = schedule.validate(k, score);
        if (ev) this.emit({ type: 'evaluation', kind: 'gate', step: k, evaluation: ev });
      }
      if (!wasRetired && schedule.retired) {
        c.tokensAtRetirement = c.sampledTokens;
        c.envStepsAtRetirement = c.envSteps;
        this.emit({
          type: 'retirement',
          step: k,
          triggerStep: schedule.triggerStep ?? k,
          schedule: schedule.name,
          teacherPerformance: this.state.teacherPerformance ?? NaN,
        });
      }
      Object.assign(line, schedule.metrics());
      // training-step time without the validation rollout (the before/after-retirement comparison)
      const ms = this.clock() - t0 - validationMs;
      line['time/step_ms'] = ms;
      if (plan.teacherNeeded) {
        c.msBefore += ms;
        c.stepsBefore++;
      } else {
        c.msAfter += ms;
        c.stepsAfter++;
      }
      this.emit({ type: 'step', stage: 'student', step: k, totalSteps: sc.steps, metrics: line });
      await this.afterStep(k);
    }
  }

  private async runEvaluation(): Promise<EvaluationStageResult> {
    return runEvaluationStage({
      cfg: this.cfg,
      env: this.opts.env,
      engine: this.opts.engine,
      policy: this.models.student ?? this.models.teacher ?? this.models.init!,
      init: this.models.init!,
      testSeed: hashInts(this.cfg.seed, PURPOSE.test),
      emit: this.emit,
      stopPoint: () => this.stopPoint(),
    });
  }

  private summary(
    status: RunSummary['status'],
    error: string | null,
    test: PolicyEvaluation | null,
    evaluation: EvaluationStageResult | null,
  ): RunSummary {
    const c = this.state.counters;
    const s = this.schedule;
    return {
      name: this.cfg.name,
      seed: this.cfg.seed,
      env: this.cfg.env.name,
      schedule: this.cfg.student.schedule,
      estimator: this.cfg.student.estimator,
      lambdaObs: this.cfg.sft.lambdaObs,
      status,
      error,
      sft: this.state.sft
        ? {
            observationCeBase: this.state.sft.observationCeBase,
            observationCe: this.state.sft.observationCe,
            actionCe: this.state.sft.actionCe,
            gradientCosineLast: this.state.sft.gradientCosineLast,
          }
        : null,
      teacherPerformance: this.state.teacherPerformance,
      gate: {
        retired: s?.retired ?? false,
        triggerStep: s?.triggerStep ?? null,
        teacherForwardRun: c.teacherForwardRun,
        teacherForwardSkipped: s?.gate.teacherForwardSkipped ?? 0,
        tokensAtRetirement: c.tokensAtRetirement,
        envStepsAtRetirement: c.envStepsAtRetirement,
      },
      validation: c.validationLast === null ? null : { best: c.validationBest ?? NaN, last: c.validationLast },
      test: test ?? {
        successRate: NaN,
        rewardMean: NaN,
        passAtK: {},
        entropyByClass: { actionHead: NaN, actionArg: NaN },
        klFromInit: NaN,
      },
      temperatureControl: evaluation?.temperatureControl ?? [],
      probeEntropy: evaluation?.probeEntropy ?? null,
      matchedTemperature: evaluation?.matchedTemperature ?? null,
      stepMs: {
        beforeRetirement: c.stepsBefore ? c.msBefore / c.stepsBefore : null,
        afterRetirement: c.stepsAfter ? c.msAfter / c.stepsAfter : null,
      },
      wallSeconds: this.wallAtStart + (this.clock() - this.runStartMs) / 1000,
      backend: this.cfg.runtime.backend,
    };
  }
}
