// The run log's metric keys: what a metrics.jsonl line (and the tab's stored run) calls each quantity, named as
// docs/METHODS.md §8 names them (verl's names where verl has one). The trainer writes them, and the charts, the
// replay's defaults, the comparison and the CLI read them through these constants, so a rename is one edit here and
// a typo is a type error, not a silently empty chart. The gate's own `retire_opd/*` keys are
// RETIRE_OPD_METRIC_NAMES in ../retirementGate.ts.
export const METRIC = {
  // student and teacher GRPO steps (verl's actor/* and critic/* names)
  actorLoss: 'actor/loss',
  actorPgLoss: 'actor/pg_loss',
  actorPgClipfracLower: 'actor/pg_clipfrac_lower',
  actorPgClipfracHigher: 'actor/pg_clipfrac_higher',
  actorRatioMean: 'actor/ratio_mean',
  actorEntropy: 'actor/entropy',
  actorKlLoss: 'actor/kl_loss',
  /** the policy gradient's global L2 norm BEFORE clipping, mean over the step's updates (verl's reduction) */
  actorGradNorm: 'actor/grad_norm',
  /** the factor grpo.gradClip scaled the gradients by, mean over the step's updates (1 = never clipped) */
  actorGradClipCoef: 'actor/grad_clip_coef',
  /** fraction of the step's updates whose gradient was clipped */
  actorGradClipped: 'actor/grad_clipped',
  /** action tokens with Â < 0 where the dual-clip bound −c·Â applies (verl's pg_clipfrac_lower; clip_ratio_c) */
  actorPgClipfracDual: 'actor/pg_clipfrac_dual',
  /** standard deviation of the ratio r over the step's action tokens, all its updates pooled (0 when on-policy) */
  actorRatioStd: 'actor/ratio_std',
  /** optimizer updates of this step: grpo.miniBatches × grpo.epochs (fewer when there are fewer groups) */
  actorUpdates: 'actor/updates',
  criticFracRewardZeroStd: 'critic/frac_reward_zero_std',
  rolloutSuccessRate: 'rollout/success_rate',
  // on-policy distillation (student stage)
  opdLoss: 'opd/loss',
  opdK3Kl: 'opd/k3_kl',
  opdRatioMean: 'opd/ratio_mean',
  /** the distillation form's own per-token quantity (docs/METHODS.md §3, distillation forms): top-k forward KL, GKD's JSD_β, or for
   * kl-reward the mean per-token reward −(log π_old − log π_T); absent under reverse-kl and self-distill (k3_kl) */
  opdDivergence: 'opd/divergence',
  /** self-distill: student steps since the frozen self-teacher was copied from the student */
  opdSelfTeacherAge: 'opd/self_teacher_age',
  /** gkd-jsd with λ < 1: 1 when the step distilled on the teacher's own samples, 0 on the student's rollout */
  opdTeacherSampled: 'opd/teacher_sampled',
  /** the gap g = token-mean(log π_T − log π_old) the gate observes as K = −g */
  opdTeacherStudentGapMean: 'opd/teacher_student_gap_mean',
  // validation, test and timings
  valSuccessRate: 'val/success_rate',
  testSuccessRate: 'test/success_rate',
  testRewardMean: 'test/reward_mean',
  timeStepMs: 'time/step_ms',
  timeValidationMs: 'time/validation_ms',
  // where a training step's time goes, in seconds per step (verl's timing_s/gen, timing_s/ref, timing_s/update_actor,
  // timing_s/testing, timing_s/save_checkpoint), and throughput. Under time/ so that every pin and run comparison
  // that drops wall-clock fields drops them too. timeCheckpointS is the checkpoint written after the PREVIOUS step
  // (the step's line is emitted before its own checkpoint is written).
  timeRolloutS: 'time/rollout_s',
  timeTeacherForwardS: 'time/teacher_forward_s',
  timeUpdateS: 'time/update_s',
  timeValidationS: 'time/validation_s',
  timeCheckpointS: 'time/checkpoint_s',
  /** sampled (generated) tokens per second of the whole step */
  timeTokensPerS: 'time/tokens_per_s',
  timeStepsPerS: 'time/steps_per_s',
  /** tensor reads to the host during the step (rollout, update and validation; each waits for a GPU to finish) */
  timeReadbacks: 'time/readbacks',
  /**
   * reads started before more device work was queued and awaited after it (webgpu: a GRPO step's statistics, read
   * while the next rollout is queued); present only when there were any
   */
  timeReadbacksAsync: 'time/readbacks_async',
  // SFT (ActObs / ActionSFT)
  sftLoss: 'sft/loss',
  sftActionCe: 'sft/action_ce',
  sftObsCe: 'sft/obs_ce',
  sftActionTokens: 'sft/action_tokens',
  sftObsTokens: 'sft/obs_tokens',
  sftGradNorm: 'sft/grad_norm',
  /** cos(∇ action loss, ∇ observation loss), every sft.geometryEvery steps */
  sftGradCosine: 'sft/grad_cosine',
  sftGradNormRatio: 'sft/grad_norm_ratio',
} as const;

export type MetricKey = (typeof METRIC)[keyof typeof METRIC];
