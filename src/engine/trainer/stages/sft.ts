// The SFT stage (docs/METHODS.md §1): ActObs / ActionSFT updates of π_init on the skill-free demonstrations with
// observation weight λ_obs (the student's starting point: nothing it reads shows a skill segment), the action/observation gradient geometry every sft.geometryEvery steps, and the probe CE of the
// held-out demonstrations before and after (the summary's sft block).
import * as tf from '@tensorflow/tfjs';
import type { Trajectory } from '../../../core/env/types';
import type { ExperimentConfig } from '../../../core/experiment/config';
import { createRng } from '../../../core/rng';
import { actObsLoss } from '../../losses/actObsLoss';
import { actObsGradientGeometry } from '../../losses/gradientGeometry';
import type { PolicyModel } from '../../model';
import { checkedUpdate } from '../checkedUpdate';
import type { TrainerOptimizer } from '../enginePort';
import { evaluateProbes } from '../probes';
import { stepSeed } from '../seeds';
import { disposeTensors, packSequences, toTensors } from '../../sequenceBatch';
import { demonstrationsOf, type Demonstrations } from './demonstrations';
import type { StageContext } from './stageContext';
import { phaseMetrics } from '../../../core/runLog/stepPhases';
import { METRIC } from '../../../core/runLog/metricKeys';

/** A demonstration as an SFT update reads it: in the teacher's view, `prefix` is the task's skill segment. */
export type SftSample = Trajectory & { prefix?: readonly number[] };

/** Which demonstrations an SFT update reads, and in which view. */
export type SftView = 'student' | 'teacher';

export interface SftStepRequest {
  model: PolicyModel;
  optimizer: TrainerOptimizer;
  demos: Demonstrations;
  cfg: ExperimentConfig;
  /**
   * student: the skill-free demonstrations (demos.train) as they are — the student's SFT, whose checkpoint π_init
   * every policy starts from; teacher: demos.teacherView with each task's skill segment in front (the in-run teacher's
   * own skill-view SFT, teacher.sftSteps, never seen by the student)
   */
  view: SftView;
  step: number;
  /** seeds the minibatch draw of this step */
  seed: number;
  injectNonFinite?: string | null;
}

/**
 * The demonstrations of one SFT update: sft.batchSize draws with replacement from the view's pool, seeded. The student
 * view never carries a prefix (no skill segment); the teacher view always does. Pure: no tensors.
 */
export function sftBatch(demos: Demonstrations, cfg: ExperimentConfig, view: SftView, seed: number): SftSample[] {
  const pool = view === 'student' ? demos.train : demos.teacherView;
  if (pool.length === 0)
    throw new Error(
      view === 'student'
        ? 'sft: no demonstrations (demonstrations.tasks is 0 but sft.steps > 0)'
        : 'teacher.sftSteps: no teacher-view demonstrations (demonstrations.tasks is 0)',
    );
  const rng = createRng(seed);
  return Array.from({ length: cfg.sft.batchSize }, () => {
    const d = pool[rng.int(pool.length)] as Trajectory;
    return view === 'student' ? d : { ...d, prefix: d.task.skillTokens };
  });
}

/** One SFT update on a random minibatch of demonstrations (drawn with replacement). Returns the step's metrics. */
export async function sftStep(req: SftStepRequest): Promise<Record<string, number>> {
  const { model, demos, cfg } = req;
  const batch = sftBatch(demos, cfg, req.view, req.seed);
  const t = toTensors(packSequences(batch));
  try {
    const { host } = await checkedUpdate({
      stage: 'sft',
      step: req.step,
      optimizer: req.optimizer,
      variables: model.trainableVariables,
      finiteTerms: { loss: 'sft' },
      loss: () => {
        const out = actObsLoss(
          { logits: model.forward(t.tokens, t.lengths), targets: t.targets, targetClasses: t.targetClasses },
          cfg.sft.lambdaObs,
        );
        const loss = req.injectNonFinite === 'sft' ? (tf.mul(out.loss, NaN) as tf.Scalar) : out.loss;
        return { loss, stats: out.stats };
      },
    });
    const m: Record<string, number> = {
      [METRIC.sftLoss]: host.loss,
      [METRIC.sftActionCe]: host.actionCE,
      [METRIC.sftObsCe]: host.observationCE,
      [METRIC.sftActionTokens]: host.actionTokens,
      [METRIC.sftObsTokens]: host.observationTokens,
      [METRIC.sftGradNorm]: Math.sqrt(host.gradNormSq),
    };
    const every = cfg.sft.geometryEvery;
    if (req.view === 'student' && every > 0 && req.step % every === 0) {
      const geo = await actObsGradientGeometry(
        () => model.forward(t.tokens, t.lengths),
        t.targets,
        t.targetClasses,
        model.trainableVariables,
      );
      m[METRIC.sftGradCosine] = geo.cosine;
      m[METRIC.sftGradNormRatio] = geo.normRatio;
    }
    return m;
  } finally {
    disposeTensors(t);
  }
}

/** The SFT stage from completed step `from`: probes of π_init before (at 0) and after, sft.steps updates between. */
export async function runSft(ctx: StageContext, from: number): Promise<void> {
  const { cfg, state } = ctx;
  const demos = demonstrationsOf(ctx);
  const init = ctx.models.init!;
  if (from === 0) {
    const base = await evaluateProbes(init, demos.heldOut);
    state.sft = {
      observationCeBase: base.observationCe,
      actionCeBase: base.actionCe,
      observationCe: base.observationCe,
      actionCe: base.actionCe,
      gradientCosineLast: null,
    };
  }
  const steps = cfg.sft.steps;
  if (steps === 0) return;
  const optimizer = await ctx.openOptimizer(init, cfg.sft.learningRate, from);
  for (let k = from + 1; k <= steps; k++) {
    const t0 = ctx.clock();
    const m = await sftStep({
      model: init,
      optimizer,
      demos,
      cfg,
      view: 'student',
      step: k,
      seed: stepSeed(cfg.seed, 'sft', k, 'tasks'),
      injectNonFinite: ctx.injected('sft', k),
    });
    const ms = ctx.clock() - t0;
    const checkpointMs = ctx.takeCheckpointMs();
    const phases = { rollout: 0, teacherForward: 0, update: ms, validation: 0, checkpoint: checkpointMs };
    const cosine = m[METRIC.sftGradCosine];
    if (cosine !== undefined && state.sft) state.sft.gradientCosineLast = cosine;
    ctx.emit({
      type: 'step',
      stage: 'sft',
      step: k,
      totalSteps: steps,
      metrics: { step: k, ...m, [METRIC.timeStepMs]: ms, ...phaseMetrics(phases, ms + checkpointMs, 0) },
    });
    await ctx.afterStep(k);
  }
  const after = await evaluateProbes(init, demos.heldOut);
  if (state.sft) {
    state.sft.observationCe = after.observationCe;
    state.sft.actionCe = after.actionCe;
  }
}
