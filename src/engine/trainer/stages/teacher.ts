// The teacher stage (docs/METHODS.md §5): GRPO on the teacher's view (the skill segment in front of every stream),
// starting from π_init — the student's skill-free SFT checkpoint — after teacher.sftSteps skill-view SFT updates of
// its own (or a shipped teacher, which trains nothing here); then the teacher is frozen and S_T, its
// validation score in the skill view, is measured with the gate's metric.
import type { PolicyModel } from '../../model';
import { policyUpdate } from '../policyUpdate';
import { stepSeed } from '../seeds';
import { demonstrationsOf } from './demonstrations';
import { sftStep } from './sft';
import { rolloutMetrics } from '../rolloutMetrics';
import type { StageContext } from './stageContext';
import { trainingRollout, validationScore } from './stageRollouts';
import { NextRollout } from './nextRollout';
import { METRIC } from '../../../core/runLog/metricKeys';
import { phaseMetrics } from '../../../core/runLog/stepPhases';

/** Steps this stage trains: none with a shipped teacher. */
export function teacherSteps(ctx: StageContext): number {
  return ctx.shippedTeacher ? 0 : ctx.cfg.teacher.steps;
}

export async function runTeacher(ctx: StageContext, from: number): Promise<void> {
  const { cfg, models } = ctx;
  const init = models.init!;
  if (!models.teacher) {
    models.teacher = ctx.newModel('teacher');
    if (ctx.shippedTeacher) models.teacher.setWeights(ctx.shippedTeacher);
    else {
      models.teacher.copyWeightsFrom(init);
      await teacherSkillSft(ctx, models.teacher);
    }
  }
  const teacher = models.teacher;
  const steps = teacherSteps(ctx);
  const g = cfg.teacher.grpo;
  const optimizer = steps > 0 ? await ctx.openOptimizer(teacher, g.learningRate, from) : null;
  // webgpu: the next step's rollout is queued while this step's statistics are read (nextRollout.ts)
  const next = new NextRollout();
  try {
    for (let k = from + 1; k <= steps; k++) {
      const t0 = ctx.clock();
      const early = next.take();
      const { tasks, rollout: r } = await (early.rollout ?? trainingRollout(ctx, 'teacher', k, teacher, g));
      const rolloutMs = ctx.clock() - t0;
      ctx.liveEpisode('teacher', k, tasks, r, true);
      const u0 = ctx.clock();
      const u = await policyUpdate({
        stage: 'teacher',
        step: k,
        policy: teacher,
        optimizer: optimizer!,
        rollout: r,
        tasks,
        groupSize: g.groupSize,
        grpo: g,
        withSkill: true,
        opd: null,
        reference: g.klBeta > 0 ? init : null,
        injectNonFinite: ctx.injected('teacher', k),
        whileReading:
          k < steps && ctx.overlapRollouts
            ? () => next.queue(() => trainingRollout(ctx, 'teacher', k + 1, teacher, g))
            : undefined,
      });
      const updateMs = ctx.clock() - u0;
      const ms = ctx.clock() - t0;
      const checkpointMs = ctx.takeCheckpointMs();
      const phases = {
        rollout: rolloutMs,
        teacherForward: 0,
        update: updateMs,
        validation: 0,
        checkpoint: checkpointMs,
      };
      ctx.emit({
        type: 'step',
        stage: 'teacher',
        step: k,
        totalSteps: steps,
        metrics: {
          step: k,
          ...rolloutMetrics(r),
          ...u.metrics,
          [METRIC.timeStepMs]: ms,
          ...next.readbacks(early),
          ...phaseMetrics(phases, ms + checkpointMs, r.sampledTokens),
        },
      });
      await ctx.afterStep(k);
    }
  } finally {
    await next.settle();
  }
  // frozen from here on; S_T on the validation split with the gate's metric
  let sT = await validationScore(ctx, teacher, true);
  if (!(sT > 0)) {
    const floor = 1 / (2 * cfg.student.validationTasks);
    ctx.emit({
      type: 'warning',
      message: `teacher validation score S_T = ${sT} is not > 0; the gate needs S_T > 0, using ${floor} (half of one success) instead`,
    });
    sT = floor;
  }
  ctx.state.teacherPerformance = sT;
}

/**
 * The in-run teacher's own skill-view SFT: teacher.sftSteps updates on the teacherPolicy demonstrations with the skill
 * segment in front, from the student's SFT checkpoint (already copied into `teacher`). Only the teacher reads these
 * demonstrations, so the student's starting point never sees a skill. Runs whole when the teacher is created (a
 * checkpoint is written only after GRPO steps, so a resumed run either redoes it all or has its result); it emits
 * no step events (the stage's steps are its GRPO steps).
 */
async function teacherSkillSft(ctx: StageContext, teacher: PolicyModel): Promise<void> {
  const { cfg } = ctx;
  const steps = cfg.teacher.sftSteps;
  if (steps === 0) return;
  const demos = demonstrationsOf(ctx);
  const optimizer = await ctx.openOptimizer(teacher, cfg.sft.learningRate, 0);
  for (let k = 1; k <= steps; k++) {
    await sftStep({
      model: teacher,
      optimizer,
      demos,
      cfg,
      view: 'teacher',
      step: k,
      seed: stepSeed(cfg.seed, 'teacher', k, 'tasks'),
    });
  }
}
