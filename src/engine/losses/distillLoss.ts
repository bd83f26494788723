// The student's distillation term in each of the lab's forms (docs/METHODS.md §3, distillation forms), one entry point for the policy
// update: `reverse-kl` and `self-distill` are opdLoss.ts's reverse KL with the configured estimator (the same call
// as before the forms existed, so the default is bit for bit the lab's original OPD term; self-distill differs only
// in WHICH teacher scored the tokens, trainer/selfTeacher.ts); `topk-forward-kl`, `gkd-jsd` and `kl-reward` are the
// files beside this one. Every form reports OPD's statistics (gap, k3, ratioMean, actionTokens) from the same
// per-token log-ratio, so the retirement gate's K = −gap means the same under every form, plus `divergence`: the
// form's own per-token quantity, token-mean over action tokens (for kl-reward, the mean reward c_t); reverse-kl and
// self-distill report k3 as before (no extra statistic: the default's kernels are unchanged).
// teacherSampledJsd is gkd-jsd on a teacher-sampled batch (GKD's λ < 1, ../trainer/teacherSampled.ts): the same JSD_β
// on the teacher's tokens; it has no gap, k3 or ratio (no student rollout, no π_old), so it reports only its own.
//
// Fused WebGPU forms: reverse-kl uses the fused OPD kernels (kernels/webgpuOpdReduce.ts). The other forms are
// composed of stock tfjs ops on every backend (webgpu included): each is one or two passes over [B, T, V] that the
// lab's tiny vocabularies make cheap, and their top-k / stacked log-sum-exp do not fit the fused row kernel's
// one-value-per-row layout; a fused form would be new WGSL for no measured need.
import * as tf from '@tensorflow/tfjs';
import type { DistillForm, OpdEstimator } from '../../core/methodVocabulary';
import { generalizedJsd } from './generalizedJsd';
import { klRewardSurrogate } from './klReward';
import { actionMask, checkedTokenStats, maskedMean, type LossOutput, type OpdInputs } from './lossTypes';
import { opdLoss, type OpdStat } from './opdLoss';
import { tokenLogProbs } from './tokenLogProbs';
import { topKForwardKl } from './topKForwardKl';

export type DistillStat = OpdStat | 'divergence';

/** Which form, and its knobs (config student.distill.* and student.estimator). */
export interface DistillSpec {
  form: DistillForm;
  estimator: OpdEstimator;
  /** k of topk-forward-kl */
  topK: number;
  /** β of gkd-jsd (TRL's convention) */
  beta: number;
}

/** The ratio cap of kl-reward's surrogate: OPD's (opdLoss.ts). */
const LOG_RATIO_CAP = 10;

export function distillLoss(inputs: OpdInputs, spec: DistillSpec): LossOutput<OpdStat> | LossOutput<DistillStat> {
  if (spec.form === 'reverse-kl' || spec.form === 'self-distill') {
    return opdLoss(inputs, spec.estimator); // exactly the original call: same kernels, same bits
  }
  const needsLogits = spec.form === 'topk-forward-kl' || spec.form === 'gkd-jsd';
  if (needsLogits && inputs.teacherLogits === undefined) {
    throw new Error(`distillLoss: form '${spec.form}' needs teacherLogits [B, T, V] (the teacher's distribution)`);
  }
  // OPD's statistics (the gate's gap among them) from opdLoss itself; its k3 loss value is not used (the enclosing
  // gradient scope disposes it)
  const base = opdLoss(inputs, 'k3');
  const shared = checkedTokenStats('distillLoss', inputs.tokenStats, inputs.logits, inputs.targets);
  const { logits, targets, targetClasses, oldLogProbs, teacherLogProbs } = inputs;
  const loss = tf.tidy(() => {
    const mask = actionMask(targetClasses); // [B, T]
    let perToken: tf.Tensor; // [B, T]
    if (spec.form === 'topk-forward-kl') perToken = topKForwardKl(logits, inputs.teacherLogits!, spec.topK);
    else if (spec.form === 'gkd-jsd') perToken = generalizedJsd(logits, inputs.teacherLogits!, spec.beta);
    else {
      const lp = shared?.logProbs() ?? tokenLogProbs(logits, targets);
      perToken = klRewardSurrogate(lp, oldLogProbs, teacherLogProbs, LOG_RATIO_CAP);
    }
    return maskedMean(perToken, mask);
  });
  const divergence =
    spec.form === 'kl-reward'
      ? tf.tidy(() => maskedMean(tf.sub(teacherLogProbs, oldLogProbs), actionMask(targetClasses)))
      : tf.tidy(() => tf.clone(loss));
  return { loss, stats: { ...base.stats, loss, divergence } };
}

/** GKD's JSD on teacher-sampled sequences (λ < 1): the student's view of the teacher's own episodes. */
export interface TeacherSampleInputs {
  /** [B, T, V] student logits on the teacher's streams without the skill segment */
  logits: tf.Tensor;
  /** [B, T, V] the teacher's logits at the same positions, in its own view (skill segment in front) */
  teacherLogits: tf.Tensor;
  /** [B, T] int32 class of each target (token t + 1 of the stream) */
  targetClasses: tf.Tensor;
}

export type TeacherSampleStat = 'loss' | 'divergence' | 'actionTokens';

/** Token mean of JSD_β over the action targets of a teacher-sampled batch; the form's divergence is the loss. */
export function teacherSampledJsd(inputs: TeacherSampleInputs, beta: number): LossOutput<TeacherSampleStat> {
  const mask = actionMask(inputs.targetClasses); // [B, T]
  const loss = tf.tidy(() => maskedMean(generalizedJsd(inputs.logits, inputs.teacherLogits, beta), mask));
  const stats = { loss, divergence: tf.clone(loss), actionTokens: tf.sum(mask) as tf.Scalar };
  mask.dispose();
  return { loss, stats };
}
