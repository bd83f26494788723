// The student's distillation term in each of the lab's forms (docs/METHODS.md §3, distillation forms), one entry point for the policy
// update: `reverse-kl` and `self-distill` are opdLoss.ts's reverse KL with the configured estimator (the same call
// as before the forms existed, so the default is bit for bit the lab's original OPD term; self-distill differs only
// in WHICH teacher scored the tokens, trainer/selfTeacher.ts); `topk-forward-kl`, `gkd-jsd` and `kl-reward` are the
// files beside this one. Every form reports OPD's statistics (gap, k3, ratioMean, actionTokens) from the same
// per-token log-ratio, so the retirement gate's K = −gap means the same under every form, plus `divergence`: the
// form's own per-token quantity, token-mean over action tokens (for kl-reward, the mean reward c_t); reverse-kl and
// self-distill report k3 as before (no extra statistic: the default's kernels are unchanged).
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
