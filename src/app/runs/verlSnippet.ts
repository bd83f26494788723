// A run's gate and OPD settings as Hydra overrides for the public RetireOPD code (verl; github.com/Stars1233/SDAR,
// examples/retireopd_trainer/run_*.sh and verl/trainer/ppo/retire_opd.py), so the same ablation can run on a
// cluster and its log come back through the replay view. Key names are theirs:
//   student.lambdaOpd                → +algorithm.opd.opd_coef
//   S_T (the run's measured teacher) → +algorithm.opd.teacher_performance
//   student.gate.windowSize (W)      → +algorithm.opd.retirement_window_size and trainer.test_freq (validation
//                                      every W steps, as their scripts set it)
//   student.gate.alignmentThreshold  → +algorithm.opd.alignment_threshold (δ)
//   student.gate.competenceThreshold → +algorithm.opd.competence_threshold (γ)
//   student.gate.denominatorEpsilon  → +algorithm.opd.denominator_epsilon
//   student.validationMetric         → +algorithm.opd.success_metric (val/success_rate | val/reward_mean)
//   student.grpo.groupSize           → env.rollout.n
//   student.grpo.learningRate        → actor_rollout_ref.actor.optim.lr (the lab's rate is for a tiny model: a
//                                      comment says so; their scripts use 1e-6 for 3B models)
//   env.invalidActionPenalty         → actor_rollout_ref.actor.invalid_action_penalty_coef
// Schedules: adaptive → verl.trainer.main_retire_opd_trainer; never → verl.trainer.main_grpo_opd_trainer (OPD all
// along); none → plain GRPO (no +algorithm.opd keys); fixed/linear/single-criterion gates have no counterpart there.
// student.distill.form (docs/METHODS.md §3, distillation forms): reverse-kl is what the RetireOPD code runs (no line
// added); the others get comment lines naming the closest verl or TRL setting, or saying there is none.
import type { ExperimentConfig } from '../../core/experiment/config';

export function verlSnippet(config: ExperimentConfig, teacherPerformance: number | null): string {
  const s = config.student;
  const g = s.gate;
  const entry =
    s.schedule === 'adaptive'
      ? 'verl.trainer.main_retire_opd_trainer'
      : s.schedule === 'never'
        ? 'verl.trainer.main_grpo_opd_trainer'
        : s.schedule === 'none'
          ? 'verl.trainer.main_ppo (plain GRPO: algorithm.adv_estimator=grpo)'
          : null;
  const out: string[] = [
    `# RetireLab run "${config.name}" seed ${config.seed}: schedule ${s.schedule}, λ_opd ${s.lambdaOpd}`,
    entry
      ? `# python3 -m ${entry} \\`
      : `# schedule ${s.schedule} has no counterpart in the RetireOPD code (adaptive, never and none do)`,
  ];
  const common = [
    `env.rollout.n=${s.grpo.groupSize}`,
    `actor_rollout_ref.actor.invalid_action_penalty_coef=${config.env.invalidActionPenalty}`,
    `# actor_rollout_ref.actor.optim.lr=${s.grpo.learningRate}  (the lab's rate for a tiny model; their 3B scripts use 1e-6)`,
  ];
  if (s.schedule === 'none') return [...out, ...common].join('\n') + '\n';
  out.push(`+algorithm.opd.opd_coef=${s.lambdaOpd}`);
  if (s.schedule === 'adaptive') {
    out.push(
      teacherPerformance !== null && teacherPerformance > 0
        ? `+algorithm.opd.teacher_performance=${teacherPerformance}`
        : '+algorithm.opd.teacher_performance=<S_T of your teacher: its validation success rate>',
      `+algorithm.opd.retirement_window_size=${g.windowSize}`,
      `trainer.test_freq=${g.windowSize}`,
      `+algorithm.opd.alignment_threshold=${g.alignmentThreshold}`,
      `+algorithm.opd.competence_threshold=${g.competenceThreshold}`,
      `+algorithm.opd.denominator_epsilon=${g.denominatorEpsilon}`,
      `+algorithm.opd.success_metric=val/${s.validationMetric}`,
    );
  }
  out.push('+algorithm.opd.teacher_model_path=<your teacher checkpoint>');
  return [...out, ...distillFormLines(config), ...common].join('\n') + '\n';
}

/** Comment lines for a distillation form other than reverse-kl: the closest verl / TRL setting, or none. */
function distillFormLines(config: ExperimentConfig): string[] {
  const d = config.student.distill;
  switch (d.form) {
    case 'reverse-kl':
      return [];
    case 'topk-forward-kl':
      return [
        `# distill form topk-forward-kl (k = ${d.topK}): the RetireOPD code has none; closest is verl's on-policy`,
        "# distillation recipe's top-k forward KL (the teacher's top-k log-probs, the rest as one bucket), k = " +
          d.topK,
      ];
    case 'kl-reward':
      return [
        '# distill form kl-reward: the RetireOPD code has none; closest in verl is the KL-in-reward path with the',
        '# teacher as the reference policy: algorithm.use_kl_in_reward=True, actor_rollout_ref.ref.model.path=<teacher>',
        `# (algorithm.kl_ctrl.kl_coef=${config.student.lambdaOpd}; verl's KL there is to the ref model, low_var_kl by default, not k1)`,
      ];
    case 'gkd-jsd':
      return [
        '# distill form gkd-jsd: the RetireOPD code has none; the same loss is TRL GKDTrainer with',
        `# GKDConfig(beta=${d.beta}, lmbda=${d.studentFraction}${d.studentFraction < 1 ? ', seq_kd=True' : ''}) (no GRPO term and no retirement gate there)`,
        // λ < 1: the rest of the batches are the teacher's samples, TRL's seq_kd (its teacher sees no privileged context)
        ...(d.studentFraction < 1
          ? [
              "# (lmbda < 1: the lab's teacher samples with its skill in context; TRL's teacher sees the student's prompt)",
            ]
          : []),
      ];
    case 'self-distill':
      return [
        `# distill form self-distill (frozen self-copy refreshed every ${d.refreshEvery} steps): no counterpart in the`,
        '# RetireOPD code, verl or TRL',
      ];
    default: {
      const never: never = d.form;
      throw new Error(`verlSnippet: unknown distill form ${String(never)}`);
    }
  }
}
