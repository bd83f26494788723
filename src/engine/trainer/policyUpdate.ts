// The policy-gradient updates of one rollout: GRPO (docs/METHODS.md §2) plus, for the student, λ_opd · OPD against
// the frozen skill-conditioned teacher (§3; its log-probs come from teacherView.ts). Also the gap statistic g_k that
// feeds the retirement gate. The rollout's log π_old, advantages, teacher and reference log-probs and g_k are computed
// once; the groups are then cut into grpo.miniBatches mini-batches passed over grpo.epochs times (../../core/
// miniBatches.ts), one optimizer step each, so every update after the first is off-policy and the clip and OPD's k3
// ratio act. Every loss term and the gradient norm are checked (checkedUpdate.ts) BEFORE the optimizer touches the
// weights, and the gradient is clipped to grpo.gradClip; a failing update leaves the model as it was (earlier updates
// of the same step stay applied, and the run stops). On webgpu the check, the clip and the mask are on the device
// and every update's statistics (and g_k) come back in ONE read after the step's last update: per student step one
// read here plus the rollout's one per turn.
import * as tf from '@tensorflow/tfjs';
import { grpoAdvantages, type AdvantageScaling } from '../../core/grpoAdvantages';
import type { GrpoConfig } from '../../core/experiment/config';
import type { Task } from '../../core/env/types';
import { grpoLoss } from '../losses/grpoLoss';
import { opdGap, type OpdEstimator } from '../losses/opdLoss';
import { distillLoss, teacherSampledJsd, type DistillSpec } from '../losses/distillLoss';
import { formNeedsTeacherLogits } from '../../core/methodVocabulary';
import { tokenLogProbs, tokenStats } from '../losses/tokenLogProbs';
import { useFusedKernels } from '../kernels/registerWebgpuKernels';
import type { PolicyModel } from '../model';
import type { RolloutOutput, TrainerOptimizer } from './enginePort';
import {
  checkedUpdate,
  checkRefused,
  checksOnDevice,
  queueCheckedUpdate,
  unpackUpdate,
  type CheckedUpdateRequest,
  type QueuedUpdate,
} from './checkedUpdate';
import { settleGpuErrorScopes, withDeferredGpuErrorScope } from '../webgpuDevice';
import { readAsync } from '../kernelCounter';
import type { StageName } from './events';
import { teacherOnStudentTargets, withSkillPrefix } from '../teacherView';
import { disposeTensors, toTensors, type PackedSequences } from '../sequenceBatch';
import { miniBatchPlan } from '../../core/miniBatches';
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

/** the loss terms whose non-finite value stops the run, with the name the error reports */
const FINITE_TERMS = { 'term/grpo': 'grpo', 'term/opd': 'opd' };

export interface OpdPart {
  teacher: PolicyModel;
  /** λ_opd of this step (0: only the gap is measured) */
  coef: number;
  estimator: OpdEstimator;
  /** the distillation form and its knobs (absent: reverse KL with `estimator`, the original OPD term) */
  distill?: DistillSpec;
  /** self-distill: student steps since the self-teacher was copied (a metric) */
  selfTeacherAge?: number;
  /**
   * gkd-jsd with λ < 1, a teacher-sampled step (teacherSampled.ts): the student's view of the teacher's episodes on
   * the same tasks, row b on tasks[b]. The JSD is computed on these tokens; GRPO and the gap g_k stay on the rollout.
   */
  teacherSamples?: PackedSequences;
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
  /**
   * Device path only: called once every update is queued and the step's statistics read has started, before it is
   * awaited — the student stage queues the next step's rollout here, so the device has work while the host waits
   * (the read is then counted as asynchronous, kernelCounter.ts's readAsync). Not called on cpu and wasm.
   */
  whileReading?: () => void;
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
  // g_k is read together with the first update's statistics (one read-back fewer per step)
  let gapT: tf.Scalar | null = null;
  // a teacher-sampled step's batch: its tensors and the teacher's logits [B, T', V] on it (teacherSampled.ts)
  const samples = req.opd?.teacherSamples && req.opd.coef > 0 ? toTensors(req.opd.teacherSamples) : null;
  let samplesTeacherLogits: tf.Tensor | null = null;
  const inject = (term: string, x: tf.Scalar): tf.Scalar =>
    req.injectNonFinite === term ? (tf.mul(x, NaN) as tf.Scalar) : x;
  let teacherForwardMs = 0;
  // the device path's queued updates and the chained all-finite flag of the step's updates so far
  const queued: QueuedUpdate[] = [];
  let okSoFar: tf.Scalar | null = null;
  try {
    // once per rollout, on the whole batch: the teacher's and the reference's log-probs of the sampled tokens
    // (fixed targets, like log π_old), and the gap g_k the gate observes
    let gap: number | null = null;
    if (req.opd) {
      // synchronous kernels on wasm and cpu; on webgpu this is dispatch time (the GPU work lands in the update)
      const tf0 = performance.now();
      const out = teacherOnStudentTargets(req.opd.teacher, student, tasks, t.targets, needsTeacherLogits(req.opd));
      teacherLP = out.logProbs;
      teacherLogits = out.logits;
      gapT = opdGap(teacherLP, old, t.targetClasses) as tf.Scalar;
      if (samples) {
        const s = teacherOnStudentTargets(req.opd.teacher, req.opd.teacherSamples!, tasks, samples.targets, true);
        s.logProbs.dispose();
        samplesTeacherLogits = s.logits;
      }
      teacherForwardMs = performance.now() - tf0;
    }
    if (grpo.klBeta > 0 && req.reference) {
      const ref = req.reference;
      refLP = tf.tidy(() => tokenLogProbs(ref.forward(t.tokens, t.lengths), t.targets));
    }
    const plan = miniBatchPlan(view.batch, groupSize, grpo.miniBatches, grpo.epochs);
    const pooled = new UpdatePool();
    // webgpu: clip, finiteness check and Adam's mask on the device; one read of every update's statistics
    const onDevice = checksOnDevice(req.optimizer);
    let gapQueued = false;
    for (const rows of plan.updates) {
      const whole = rows.length === view.batch; // one mini-batch: the rollout's tensors as they are
      const idx = whole ? null : tf.tensor1d(rows, 'int32');
      const pick = (x: tf.Tensor): tf.Tensor => (idx === null ? x : tf.gather(x, idx));
      const lengths = whole ? t.lengths : Int32Array.from(rows, (r) => t.lengths[r] as number);
      const mb = {
        tokens: pick(t.tokens) as tf.Tensor2D,
        targets: pick(t.targets),
        targetClasses: pick(t.targetClasses),
        old: pick(old),
        adv: pick(advT),
        teacherLP: teacherLP && pick(teacherLP),
        teacherLogits: teacherLogits && pick(teacherLogits),
        refLP: refLP && pick(refLP),
        samplesTokens: samples && (pick(samples.tokens) as tf.Tensor2D),
        samplesClasses: samples && pick(samples.targetClasses),
        samplesTeacherLogits: samplesTeacherLogits && pick(samplesTeacherLogits),
      };
      const samplesLengths = samples && (whole ? samples.lengths : Int32Array.from(rows, (r) => samples.lengths[r]!));
      try {
        const opd = req.opd;
        const request: CheckedUpdateRequest<string> = {
          stage: req.stage,
          step: req.step,
          optimizer: req.optimizer,
          variables: policy.trainableVariables,
          finiteTerms: FINITE_TERMS,
          gradClip: grpo.gradClip,
          ...(gapT !== null && gap === null && !gapQueued ? { alsoRead: { gap: gapT } } : {}),
          loss: () => {
            const logits = policy.forward(mb.tokens, lengths);
            // GRPO (log-probs, entropy) and OPD (log-probs) read the same logits: their passes over the
            // vocabulary run once (webgpu fuses each loss into kernels of its own instead)
            const shared = useFusedKernels() ? {} : { tokenStats: tokenStats(logits, mb.targets) };
            const g = grpoLoss(
              {
                logits,
                ...shared,
                targets: mb.targets,
                targetClasses: mb.targetClasses,
                oldLogProbs: mb.old,
                advantages: mb.adv,
                ...(mb.refLP ? { refLogProbs: mb.refLP } : {}),
              },
              {
                clipLow: grpo.clipLow,
                clipHigh: grpo.clipHigh,
                aggregation: grpo.aggregation,
                klCoef: grpo.klBeta,
                clipRatioC: grpo.clipRatioC,
                computeEntropy: true,
              },
            );
            const grpoTerm = inject('grpo', g.loss);
            const s: Record<string, tf.Scalar> = {};
            for (const [k, v] of Object.entries(g.stats)) s[`grpo/${k}`] = v as tf.Scalar;
            s['term/grpo'] = grpoTerm;
            let loss: tf.Scalar = grpoTerm;
            if (opd && mb.teacherLP && opd.coef > 0) {
              const o = mb.samplesTokens
                ? teacherSampledJsd(
                    {
                      logits: policy.forward(mb.samplesTokens, samplesLengths!),
                      teacherLogits: mb.samplesTeacherLogits!,
                      targetClasses: mb.samplesClasses!,
                    },
                    opd.distill?.beta ?? 0,
                  )
                : distillLoss(
                    {
                      logits,
                      ...shared,
                      targets: mb.targets,
                      targetClasses: mb.targetClasses,
                      oldLogProbs: mb.old,
                      teacherLogProbs: mb.teacherLP,
                      ...(mb.teacherLogits ? { teacherLogits: mb.teacherLogits } : {}),
                    },
                    opd.distill ?? { form: 'reverse-kl', estimator: opd.estimator, topK: 1, beta: 0 },
                  );
              const opdTerm = inject('opd', o.loss);
              for (const [k, v] of Object.entries(o.stats)) if (k !== 'loss') s[`opd/${k}`] = v as tf.Scalar;
              s['term/opd'] = opdTerm;
              loss = tf.add(loss, tf.mul(opdTerm, opd.coef)) as tf.Scalar;
            }
            return { loss, stats: s };
          },
        };
        if (onDevice) {
          // queued, not read: the step's statistics are read once, after its last update
          const q = withDeferredGpuErrorScope(`${req.stage} step ${req.step}`, () =>
            queueCheckedUpdate(request, okSoFar),
          );
          okSoFar?.dispose();
          okSoFar = q.ok;
          queued.push(q);
          gapQueued = true;
        } else {
          const { host, clipCoef } = await checkedUpdate(request);
          if (gapT !== null && gap === null) gap = host.gap as number;
          pooled.add(host, clipCoef);
        }
      } finally {
        if (idx !== null) {
          idx.dispose();
          for (const x of Object.values(mb)) x?.dispose();
        }
      }
    }
    if (onDevice) gap = await readQueued(queued, req, pooled, req.whileReading);
    const m = pooled.metrics();
    m[METRIC.criticFracRewardZeroStd] = adv.fracRewardZeroStd;
    if (req.opd?.selfTeacherAge !== undefined) m[METRIC.opdSelfTeacherAge] = req.opd.selfTeacherAge;
    return { metrics: m, teacherForwardMs, gap };
  } finally {
    for (const q of queued) q.packed.dispose();
    okSoFar?.dispose();
    disposeTensors(t);
    old.dispose();
    advT.dispose();
    gapT?.dispose();
    teacherLP?.dispose();
    teacherLogits?.dispose();
    refLP?.dispose();
    if (samples) disposeTensors(samples);
    samplesTeacherLogits?.dispose();
  }
}

/**
 * The device path's one read: every queued update's statistics in one `data()` (a concat of their packed tensors),
 * then, update by update in order, the host path's finiteness checks (the first non-finite update throws the same
 * NonFiniteError; the device already refused it and every later one) and the pooled metrics. With `whileReading`,
 * the read is started, then `whileReading` queues more device work, then the read is awaited. Returns g_k when the
 * first update carried it, else null.
 */
async function readQueued(
  queued: QueuedUpdate[],
  req: UpdateRequest,
  pooled: UpdatePool,
  whileReading?: () => void,
): Promise<number | null> {
  if (queued.length === 0) return null;
  const all = queued.length === 1 ? null : tf.concat(queued.map((q) => q.packed));
  let data: Float32Array;
  try {
    const packed = all ?? (queued[0] as QueuedUpdate).packed;
    const pending = whileReading ? readAsync(packed) : packed.data();
    whileReading?.();
    data = (await pending) as Float32Array;
  } finally {
    all?.dispose();
  }
  // the scopes' pops resolve once the device finished their work, which the read above waited for
  await settleGpuErrorScopes(`${req.stage} step ${req.step}`);
  let gap: number | null = null;
  let offset = 0;
  for (const [i, q] of queued.entries()) {
    const { host, clipCoef } = unpackUpdate(q, data, offset);
    offset += q.keys.length;
    const check = { stage: req.stage, step: req.step, finiteTerms: FINITE_TERMS, optimizer: req.optimizer };
    checkRefused(check, host, queued.length - i);
    if (host.gap !== undefined && gap === null) gap = host.gap;
    pooled.add(host, clipCoef);
  }
  return gap;
}

/**
 * The step's metrics from its updates (verl logs per update and reduces by the mean): the losses, the pre-clip
 * gradient norm and the clip coefficient are means over updates; per-token statistics (clip fractions, ratio,
 * entropy, KL) are pooled over every action token the updates saw, so the ratio's spread covers the whole step.
 */
class UpdatePool {
  private n = 0;
  private tokens = 0;
  private clipped = 0;
  private readonly perUpdate = new Map<string, number>();
  private readonly perToken = new Map<string, number>();
  private opdTokens = 0;

  add(host: Record<string, number | undefined>, clipCoef: number): void {
    const acc = (map: Map<string, number>, key: string, v: number): void => {
      map.set(key, (map.get(key) ?? 0) + v);
    };
    this.n++;
    if (clipCoef < 1) this.clipped++;
    acc(this.perUpdate, METRIC.actorLoss, host.loss as number);
    acc(this.perUpdate, METRIC.actorPgLoss, host['grpo/policyLoss'] as number);
    acc(this.perUpdate, METRIC.actorGradNorm, Math.sqrt(host.gradNormSq as number));
    acc(this.perUpdate, METRIC.actorGradClipCoef, clipCoef);
    const w = host['grpo/actionTokens'] as number;
    this.tokens += w;
    const perToken: [string, string][] = [
      [METRIC.actorPgClipfracLower, 'grpo/clipFracLow'],
      [METRIC.actorPgClipfracHigher, 'grpo/clipFracHigh'],
      [METRIC.actorPgClipfracDual, 'grpo/clipFracDual'],
      [METRIC.actorRatioMean, 'grpo/ratioMean'],
      ['ratioDevSq', 'grpo/ratioDevSq'],
      [METRIC.actorEntropy, 'grpo/entropy'],
      [METRIC.actorKlLoss, 'grpo/kl'],
    ];
    for (const [key, stat] of perToken) acc(this.perToken, key, (host[stat] as number) * w);
    if (host['term/opd'] !== undefined) {
      const wo = host['opd/actionTokens'] as number;
      this.opdTokens += wo;
      acc(this.perUpdate, METRIC.opdLoss, host['term/opd']);
      // a teacher-sampled update (gkd-jsd, λ < 1) has no k3 or ratio: no student rollout, no π_old
      if (host['opd/k3'] !== undefined) acc(this.perToken, METRIC.opdK3Kl, host['opd/k3'] * wo);
      if (host['opd/ratioMean'] !== undefined) acc(this.perToken, METRIC.opdRatioMean, host['opd/ratioMean'] * wo);
      const divergence = host['opd/divergence'];
      if (divergence !== undefined) acc(this.perToken, METRIC.opdDivergence, divergence * wo);
    }
  }

  metrics(): Record<string, number> {
    const m: Record<string, number> = {};
    for (const [k, v] of this.perUpdate) m[k] = v / this.n;
    const tokenMean = (k: string, w: number): number => (this.perToken.get(k) ?? 0) / Math.max(1, w);
    for (const k of [
      METRIC.actorPgClipfracLower,
      METRIC.actorPgClipfracHigher,
      METRIC.actorPgClipfracDual,
      METRIC.actorRatioMean,
      METRIC.actorEntropy,
      METRIC.actorKlLoss,
    ])
      m[k] = tokenMean(k, this.tokens);
    // Var(r) = E[(r − 1)²] − (E[r] − 1)², both pooled over the step's action tokens
    const dev = m[METRIC.actorRatioMean]! - 1;
    m[METRIC.actorRatioStd] = Math.sqrt(Math.max(0, tokenMean('ratioDevSq', this.tokens) - dev * dev));
    m[METRIC.actorGradClipped] = this.clipped / this.n;
    m[METRIC.actorUpdates] = this.n;
    if (this.perUpdate.has(METRIC.opdLoss)) {
      if (this.perToken.has(METRIC.opdK3Kl)) m[METRIC.opdK3Kl] = tokenMean(METRIC.opdK3Kl, this.opdTokens);
      if (this.perToken.has(METRIC.opdRatioMean))
        m[METRIC.opdRatioMean] = tokenMean(METRIC.opdRatioMean, this.opdTokens);
      if (this.perToken.has(METRIC.opdDivergence))
        m[METRIC.opdDivergence] = tokenMean(METRIC.opdDivergence, this.opdTokens);
    }
    return m;
  }
}

/** Whether the step's distillation form reads the teacher's logits over the vocabulary (not only its log-probs). */
function needsTeacherLogits(opd: OpdPart): boolean {
  // a teacher-sampled step reads the teacher's logits on its own samples only; on the rollout, only g_k
  return (
    opd.coef > 0 &&
    opd.teacherSamples === undefined &&
    formNeedsTeacherLogits(opd.distill?.form ?? 'reverse-kl', opd.estimator)
  );
}
