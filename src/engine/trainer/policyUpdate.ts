// One policy-gradient update from a rollout: GRPO (docs/METHODS.md §2) plus, for the student, λ_opd · OPD against
// the frozen skill-conditioned teacher (§3; its log-probs come from teacherView.ts). Also the gap statistic g_k that feeds the retirement gate. Every loss term
// and the gradient norm are checked (checkedUpdate.ts) BEFORE the optimizer touches the weights, so a failing step
// leaves the model (and the last checkpoint) as they were.
import * as tf from '@tensorflow/tfjs';
import { grpoAdvantages, type AdvantageScaling } from '../../core/grpoAdvantages';
import type { GrpoConfig } from '../../core/experiment/config';
import type { Task } from '../../core/env/types';
import { grpoLoss } from '../losses/grpoLoss';
import { opdGap, opdLoss, type OpdEstimator } from '../losses/opdLoss';
import { tokenLogProbs } from '../losses/tokenLogProbs';
import type { PolicyModel } from '../model';
import type { RolloutOutput, TrainerOptimizer } from './enginePort';
import { checkedUpdate } from './checkedUpdate';
import type { StageName } from './events';
import { teacherOnStudentTargets, withSkillPrefix } from '../teacherView';
import { disposeTensors, toTensors, type PackedSequences } from './sequenceBatch';
import { METRIC } from '../../core/runLog/metricKeys';

const SCALING: Record<GrpoConfig['advantage'], AdvantageScaling> = {
  group: 'group-std',
  batch: 'batch-std',
  none: 'none',
};

/** Shift a [B·T] per-target array into a [B·T'] layout with `offset` leading positions (zero-filled). */
function shiftRows(x: Float32Array, from: PackedSequences, to: PackedSequences, offset: number): Float32Array {
  const out = new Float32Array(to.batch * to.seqLen);
  for (let b = 0; b < from.batch; b++) {
    out.set(x.subarray(b * from.seqLen, b * from.seqLen + (from.lengths[b] as number)), b * to.seqLen + offset);
  }
  return out;
}

export interface OpdPart {
  teacher: PolicyModel;
  /** λ_opd of this step (0: only the gap is measured) */
  coef: number;
  estimator: OpdEstimator;
}

export interface UpdateRequest {
  stage: StageName;
  step: number;
  policy: PolicyModel;
  optimizer: TrainerOptimizer;
  rollout: RolloutOutput;
  /** per episode (G consecutive episodes form a group) */
  tasks: readonly Task[];
  groupSize: number;
  grpo: GrpoConfig;
  /** train on the teacher's view (skill prefix): the teacher stage */
  withSkill: boolean;
  /** student stage with the teacher running this step */
  opd: OpdPart | null;
  /** reference policy for the k3 KL penalty (β = grpo.klBeta > 0) */
  reference: PolicyModel | null;
  /** test hook: this loss term becomes NaN */
  injectNonFinite?: string | null;
}

export interface UpdateResult {
  metrics: Record<string, number>;
  /** ms of the frozen teacher's forward pass (0 when it did not run); the rest of the call is the update */
  teacherForwardMs: number;
  /** g_k when the teacher ran, else null */
  gap: number | null;
}

export async function policyUpdate(req: UpdateRequest): Promise<UpdateResult> {
  const { rollout, tasks, groupSize, grpo, policy } = req;
  const groups: number[][] = [];
  for (let i = 0; i < rollout.reward.length; i += groupSize)
    groups.push(Array.from(rollout.reward.subarray(i, i + groupSize)));
  const adv = grpoAdvantages(groups, { scaling: SCALING[grpo.advantage], epsilon: grpo.advantageEpsilon });
  const advantages = Float32Array.from(adv.advantages.flat());

  const student = rollout.packed;
  const view = req.withSkill ? withSkillPrefix(student, tasks) : student;
  // a fixed-length skill segment shifts every row by the same S
  const skillLen = req.withSkill ? (tasks[0] as Task).skillTokens.length : 0;
  const oldHost = req.withSkill ? shiftRows(rollout.oldLogProbs, student, view, skillLen) : rollout.oldLogProbs;

  const t = toTensors(view);
  const old = tf.tensor2d(oldHost, [view.batch, view.seqLen]);
  const advT = tf.tensor1d(advantages);
  let teacherLP: tf.Tensor | null = null;
  let teacherLogits: tf.Tensor | null = null;
  let refLP: tf.Tensor | null = null;
  const inject = (term: string, x: tf.Scalar): tf.Scalar =>
    req.injectNonFinite === term ? (tf.mul(x, NaN) as tf.Scalar) : x;
  let teacherForwardMs = 0;
  try {
    if (req.opd) {
      // synchronous kernels on wasm and cpu; on webgpu this is dispatch time (the GPU work lands in the update)
      const tf0 = performance.now();
      const out = teacherOnStudentTargets(
        req.opd.teacher,
        student,
        tasks,
        t.targets,
        req.opd.estimator === 'full' && req.opd.coef > 0,
      );
      teacherLP = out.logProbs;
      teacherLogits = out.logits;
      teacherForwardMs = performance.now() - tf0;
    }
    if (grpo.klBeta > 0 && req.reference) {
      const ref = req.reference;
      refLP = tf.tidy(() => tokenLogProbs(ref.forward(t.tokens), t.targets));
    }
    const opd = req.opd;
    const { host } = await checkedUpdate({
      stage: req.stage,
      step: req.step,
      optimizer: req.optimizer,
      variables: policy.trainableVariables,
      finiteTerms: { 'term/grpo': 'grpo', 'term/opd': 'opd' },
      loss: () => {
        const logits = policy.forward(t.tokens);
        const g = grpoLoss(
          {
            logits,
            targets: t.targets,
            targetClasses: t.targetClasses,
            oldLogProbs: old,
            advantages: advT,
            ...(refLP ? { refLogProbs: refLP } : {}),
          },
          {
            clipLow: grpo.clipLow,
            clipHigh: grpo.clipHigh,
            aggregation: grpo.aggregation,
            klCoef: grpo.klBeta,
            computeEntropy: true,
          },
        );
        const grpoTerm = inject('grpo', g.loss);
        const s: Record<string, tf.Scalar> = {};
        for (const [k, v] of Object.entries(g.stats)) s[`grpo/${k}`] = v as tf.Scalar;
        s['term/grpo'] = grpoTerm;
        let loss: tf.Scalar = grpoTerm;
        if (opd && teacherLP) {
          s['opd/gap'] = opdGap(teacherLP, old, t.targetClasses);
          if (opd.coef > 0) {
            const o = opdLoss(
              {
                logits,
                targets: t.targets,
                targetClasses: t.targetClasses,
                oldLogProbs: old,
                teacherLogProbs: teacherLP,
                ...(teacherLogits ? { teacherLogits } : {}),
              },
              opd.estimator,
            );
            const opdTerm = inject('opd', o.loss);
            for (const [k, v] of Object.entries(o.stats)) if (k !== 'loss') s[`opd/${k}`] = v as tf.Scalar;
            s['term/opd'] = opdTerm;
            loss = tf.add(loss, tf.mul(opdTerm, opd.coef)) as tf.Scalar;
          }
        }
        return { loss, stats: s };
      },
    });
    const m: Record<string, number> = {
      [METRIC.actorLoss]: host.loss,
      [METRIC.actorPgLoss]: host['grpo/policyLoss'] as number,
      [METRIC.actorPgClipfracLower]: host['grpo/clipFracLow'] as number,
      [METRIC.actorPgClipfracHigher]: host['grpo/clipFracHigh'] as number,
      [METRIC.actorRatioMean]: host['grpo/ratioMean'] as number,
      [METRIC.actorEntropy]: host['grpo/entropy'] as number,
      [METRIC.actorKlLoss]: host['grpo/kl'] as number,
      [METRIC.actorGradNorm]: Math.sqrt(host.gradNormSq),
      [METRIC.criticFracRewardZeroStd]: adv.fracRewardZeroStd,
    };
    if (host['term/opd'] !== undefined) {
      m[METRIC.opdLoss] = host['term/opd'];
      m[METRIC.opdK3Kl] = host['opd/k3'] as number;
      m[METRIC.opdRatioMean] = host['opd/ratioMean'] as number;
    }
    const gap = host['opd/gap'];
    return { metrics: m, teacherForwardMs, gap: gap === undefined ? null : gap };
  } finally {
    disposeTensors(t);
    old.dispose();
    advT.dispose();
    teacherLP?.dispose();
    teacherLogits?.dispose();
    refLP?.dispose();
  }
}
