// The student stage (docs/METHODS.md §2–§4): GRPO on the student's view (no skill) plus λ_opd·OPD against the
// frozen teacher, with λ_opd from the configured schedule. For the adaptive schedule the retirement gate sees the
// gap g_k of each step the teacher runs and the validation score S every student.validationEvery steps; once it
// retires the teacher, the teacher's forward pass is skipped for the rest of the run. With gkd-jsd and GKD's λ < 1
// (student.distill.studentFraction), a step may distil on the teacher's own samples instead (../teacherSampled.ts);
// its GRPO term and its gap g_k are still the student rollout's, so the gate sees the same g_k at every step.
import { LambdaSchedule } from '../../../core/lambdaSchedule';
import type { GateConfig } from '../../../core/gateConfig';
import { gateConfigFor } from '../../../core/experiment/gateSettings';
import type { MetricsLine } from '../events';
import { policyUpdate } from '../policyUpdate';
import { rolloutMetrics } from '../rolloutMetrics';
import type { StageContext } from './stageContext';
import { trainingRollout, validationScore } from './stageRollouts';
import { NextRollout } from './nextRollout';
import { METRIC } from '../../../core/runLog/metricKeys';
import { phaseMetrics } from '../../../core/runLog/stepPhases';
import { selfTeacherFor } from '../selfTeacher';
import type { OpdPart } from '../policyUpdate';
import { StudentGate } from '../studentGate';
import { distillSourceUniform, teacherSampledRollout, teacherSamplesStep } from '../teacherSampled';

/** The gate's settings (the public code's field names) from the config and the measured S_T. */
export function gateConfigOf(ctx: StageContext): GateConfig {
  return gateConfigFor(ctx.cfg, ctx.state.teacherPerformance);
}

export async function runStudent(ctx: StageContext, from: number): Promise<void> {
  const { cfg, models } = ctx;
  const init = models.init!;
  const teacher = models.teacher;
  // no optimizer updates the teacher or the reference in this stage: checkpoints read their weights once
  init.freeze();
  teacher?.freeze();
  if (!models.student) {
    models.student = ctx.newModel('student');
    models.student.copyWeightsFrom(init);
  }
  const student = models.student;
  ctx.schedule ??= new LambdaSchedule(cfg.student.schedule, gateConfigOf(ctx));
  const schedule = ctx.schedule;
  const gate = new StudentGate(schedule, (event) => ctx.emit(event));
  const sc = cfg.student;
  const g = sc.grpo;
  const c = ctx.state.counters;
  const optimizer = await ctx.openOptimizer(student, g.learningRate, from);
  // webgpu: the next step's rollout is queued while this step's statistics are read (nextRollout.ts)
  const next = new NextRollout();
  try {
    for (let k = from + 1; k <= sc.steps; k++) await studentStep(k);
  } finally {
    await next.settle();
  }

  async function studentStep(k: number): Promise<void> {
    const t0 = ctx.clock();
    const early = next.take();
    const plan = gate.beginStep(k);
    if (ctx.followers) await ctx.followers.beginStep(k, plan, ctx.sharedSnapshot);
    // the rollout depends on the step and the weights only (not on the gate's plan), so it may be queued early
    const { tasks, rollout: r } = await (early.rollout ?? trainingRollout(ctx, 'student', k, student, g));
    // GKD's λ < 1: is this step's distillation batch the teacher's own samples? (λ = 1 draws nothing; only gkd-jsd
    // reads λ, the config refuses λ ≠ 1 with another form)
    const fraction = sc.distill.form === 'gkd-jsd' ? sc.distill.studentFraction : 1;
    const distils = plan.teacherNeeded && teacher !== undefined && plan.opdCoef > 0;
    const fromTeacher = distils && teacherSamplesStep(fraction, () => distillSourceUniform(cfg.seed, k));
    const samples = fromTeacher
      ? (await teacherSampledRollout(ctx.engine, teacher, tasks, g.temperature, cfg.seed, k)).packed
      : null;
    const rolloutMs = ctx.clock() - t0;
    ctx.liveEpisode('student', k, tasks, r, plan.teacherNeeded);
    const u0 = ctx.clock();
    const opd = plan.teacherNeeded && teacher ? distillPart(ctx, k, teacher, plan.opdCoef) : null;
    if (opd !== null && samples !== null) opd.teacherSamples = samples;
    const u = await policyUpdate({
      stage: 'student',
      step: k,
      policy: student,
      optimizer,
      rollout: r,
      tasks,
      groupSize: g.groupSize,
      grpo: g,
      withSkill: false,
      opd,
      reference: g.klBeta > 0 ? init : null,
      injectNonFinite: ctx.injected('student', k),
      whileReading: overlapsNext(k)
        ? () => next.queue(() => trainingRollout(ctx, 'student', k + 1, student, g))
        : undefined,
    });
    const updateMs = ctx.clock() - u0;
    c.sampledTokens += r.sampledTokens;
    c.envSteps += r.envSteps;
    const line: MetricsLine = { step: k, ...rolloutMetrics(r), ...u.metrics };
    if (fraction < 1 && distils) line[METRIC.opdTeacherSampled] = fromTeacher ? 1 : 0;
    if (u.gap !== null) {
      c.teacherForwardRun++;
      line[METRIC.opdTeacherStudentGapMean] = u.gap;
      gate.observeGap(k, u.gap);
      ctx.followers?.observeGap(k, u.gap);
    }
    let validationMs = 0;
    if (k % sc.validationEvery === 0) {
      const v0 = ctx.clock();
      const score = await validationScore(ctx, student, false);
      validationMs = ctx.clock() - v0;
      line[METRIC.timeValidationMs] = validationMs;
      line[METRIC.valSuccessRate] = score;
      c.validationLast = score;
      c.validationBest = Math.max(c.validationBest ?? -Infinity, score);
      gate.validate(k, score);
      ctx.followers?.validate(k, score);
    }
    if (gate.retiredAt(k, ctx.state.teacherPerformance)) {
      c.tokensAtRetirement = c.sampledTokens;
      c.envStepsAtRetirement = c.envSteps;
    }
    // training-step time without the validation rollout (the before/after-retirement comparison)
    const ms = ctx.clock() - t0 - validationMs;
    const tail: Record<string, number> = {
      [METRIC.timeStepMs]: ms,
      ...next.readbacks(early),
    };
    const checkpointMs = ctx.takeCheckpointMs();
    const phases = {
      rollout: rolloutMs,
      teacherForward: u.teacherForwardMs,
      update: updateMs - u.teacherForwardMs,
      validation: validationMs,
      checkpoint: checkpointMs,
    };
    Object.assign(tail, phaseMetrics(phases, ms + validationMs + checkpointMs, r.sampledTokens));
    if (plan.teacherNeeded) {
      c.msBefore += ms;
      c.stepsBefore++;
    } else {
      c.msAfter += ms;
      c.stepsAfter++;
    }
    ctx.emit({ type: 'step', stage: 'student', step: k, totalSteps: sc.steps, metrics: gate.line(line, tail) });
    ctx.followers?.endStep(k, sc.steps, c, line, tail);
    await ctx.afterStep(k);
  }

  /**
   * Whether step k queues step k+1's rollout during its statistics read: not at the last step, not at a validation
   * step (the validation rollout follows the update), and not with riders (their plans begin each step).
   */
  function overlapsNext(k: number): boolean {
    return k < sc.steps && k % sc.validationEvery !== 0 && ctx.followers === null && ctx.overlapRollouts;
  }
}

/**
 * The step's distillation part: the configured form and its knobs; self-distill swaps in the student's own frozen
 * copy (../selfTeacher.ts) for the trained teacher, whose only remaining role there is S_T.
 */
function distillPart(ctx: StageContext, k: number, teacher: OpdPart['teacher'], coef: number): OpdPart {
  const sc = ctx.cfg.student;
  const d = sc.distill;
  const distill = { form: d.form, estimator: sc.estimator, topK: d.topK, beta: d.beta };
  if (d.form !== 'self-distill') return { teacher, coef, estimator: sc.estimator, distill };
  const self = selfTeacherFor(ctx.models, (name) => ctx.newModel(name), ctx.models.student!, k, d.refreshEvery);
  return { teacher: self.teacher, coef, estimator: sc.estimator, distill, selfTeacherAge: self.age };
}
