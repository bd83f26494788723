// The one source of every explanation the lab shows: beside each chart and control in the Train and Replay views,
// in the gate inspector, and in docs/GLOSSARY.md (generated from this file by glossaryMarkdown.ts; a test keeps the
// two equal). Data only. Formulas are TeX (typeset with KaTeX); `anchor` is a stable anchor of docs/METHODS.md.

export interface Explanation {
  /** what the chart or control is called in the page */
  readonly title: string;
  /** what the quantity is, in one or two sentences */
  readonly what: string;
  /** its formula in TeX, when it has one */
  readonly formula?: string;
  /** the sign convention or units, when they matter */
  readonly sign?: string;
  /** what to look for on the chart, or what the control changes */
  readonly lookFor: string;
  /** the anchor of the section of docs/METHODS.md it mirrors */
  readonly anchor: string;
}

export const EXPLANATIONS = {
  k_window_mean: {
    title: 'K̄ₘ — mean teacher–student gap per window',
    what:
      'Each training step before retirement logs the gap g = token-mean of (log π_T − log π_old) over the sampled action ' +
      'tokens. The gate uses K = −g, an estimate of the reverse KL from student to teacher, and averages it over ' +
      'non-overlapping windows of W steps.',
    formula: String.raw`K_k = -g_k,\qquad \bar K_m = \frac{1}{W}\sum_{k \in \text{window } m} K_k`,
    sign: 'K = −g: K ≥ 0 in expectation; smaller K means the student is closer to the teacher.',
    lookFor:
      'K̄ₘ should fall while the teacher still helps, then flatten. No windows after retirement: the teacher is not run.',
    anchor: 'gate-windows',
  },
  alignment_progress: {
    title: 'ρ — alignment progress',
    what:
      'How much the gap shrank from the previous evaluated window to this one, relative to the previous one (signed ' +
      'denominator, as in the public code).',
    formula: String.raw`\rho = \frac{\bar K_{m-1} - \bar K_m}{\bar K_{m-1}}`,
    sign: 'ρ > 0 means the gap is still shrinking; ρ ≤ 0 means it stopped shrinking (or grew).',
    lookFor: 'Retirement needs ρ ≤ δ. Noise makes ρ jump around zero once the gap has flattened.',
    anchor: 'gate-alignment-progress',
  },
  competence_ratio: {
    title: 'η — competence ratio',
    what: 'This validation’s score and the one a window earlier (the previous validation that evaluated a window), averaged, as a fraction of the teacher’s score S_T.',
    formula: String.raw`\eta = C = \frac{S + S_{\text{prev}}}{2\,S_T}`,
    sign: 'η = 1: the student scores as well as the teacher on the same split and metric.',
    lookFor: 'Retirement needs η ≥ γ. η rises with the validation success rate.',
    anchor: 'gate-competence-ratio',
  },
  criterion_valid: {
    title: 'criterion valid',
    what:
      'Whether ρ and η could be computed at this evaluation. Not for the first evaluated window (there is no previous ' +
      'window), nor when |K̄ₘ₋₁| ≤ ε (the ratio would divide by almost nothing).',
    formula: String.raw`\text{valid} \iff \bar K_{m-1}, S_{\text{prev}} \text{ exist},\ |\bar K_{m-1}| > \varepsilon,\ \rho, \eta \text{ finite}`,
    lookFor: 'An invalid evaluation still moves K̄ₘ₋₁ and S_prev forward; it just cannot retire the teacher.',
    anchor: 'gate-criterion-valid',
  },
  gate_decision: {
    title: 'the retirement decision',
    what:
      'At each validation the gate evaluates the oldest completed window not yet evaluated. It retires the teacher — ' +
      'for good — when the criterion is valid, the gap stopped shrinking and the student is competent enough.',
    formula: String.raw`\text{retire} \iff \text{valid} \,\wedge\, \rho \le \delta \,\wedge\, \eta \ge \gamma`,
    sign:
      'After retirement λ_opd = 0 and the teacher’s forward pass is skipped (teacher_forward_skipped flags each ' +
      'such step, teacher_forwards_skipped_total counts them).',
    lookFor:
      'With the defaults (W = 5, a validation every 5 steps) the earliest possible trigger is step 10; the shell demo’s ' +
      'W = 10 makes it step 20.',
    anchor: 'gate-decision',
  },
  val_success: {
    title: 'success rate',
    what:
      'The fraction of episodes that reach the goal: training rollouts (sampled) and validation (held-out tasks). The ' +
      'validation score is the S the gate compares with S_T.',
    formula: String.raw`\text{success} = \frac{\#\{\text{episodes with } R = 1\}}{\#\{\text{episodes}\}}`,
    lookFor: 'Validation success rising towards the teacher’s S_T is what lets η reach γ.',
    anchor: 'grpo-entropy',
  },
  entropy: {
    title: 'entropy (nats/token)',
    what: 'The mean entropy of the student’s distribution at its sampled action tokens.',
    formula: String.raw`H = -\sum_{v} \pi_\theta(v \mid y_{<t}) \log \pi_\theta(v \mid y_{<t})`,
    sign: 'In nats (natural log). 0 = the policy always writes the same token.',
    lookFor: 'A collapse to 0 means the policy stopped exploring; ActObs claims higher entropy on argument tokens.',
    anchor: 'grpo-entropy',
  },
  grad_cosine: {
    title: 'cos(∇ action loss, ∇ observation loss)',
    what:
      'During SFT, the cosine between the gradient of the action-only loss and that of the observation-only loss, over ' +
      'all parameters flattened; measured every sft.geometryEvery steps.',
    formula: String.raw`\cos(g_{\text{act}}, g_{\text{obs}}) = \frac{g_{\text{act}} \cdot g_{\text{obs}}}{\lVert g_{\text{act}}\rVert\,\lVert g_{\text{obs}}\rVert}`,
    lookFor: 'The ActObs paper reports it falling to a noise floor (~0.05) within 10–20 SFT steps.',
    anchor: 'actobs-gradient-geometry',
  },
  actobs_loss: {
    title: 'ActObs loss (observation weight λ)',
    what: 'SFT loss over action tokens plus λ times observation tokens, normalised per sequence.',
    formula: String.raw`L_\lambda = -\frac{\sum_{i\in A}\log\pi_\theta(y_i) + \lambda\sum_{i\in O}\log\pi_\theta(y_i)}{\max(1, |A| + \lambda|O|)}`,
    sign: 'λ = 0 is ActionSFT; λ = 1 weights every action and observation token equally.',
    lookFor: 'ActionSFT’s observation cross-entropy gets worse than the base model’s; ActObs keeps it low.',
    anchor: 'actobs-loss',
  },
  lambda_opd: {
    title: 'λ_opd — weight of the distillation loss',
    what: 'The student minimises the GRPO loss plus λ_opd times the OPD loss while the teacher is active.',
    formula: String.raw`L = L_{\text{GRPO}} + \lambda_{\text{opd}}\, L_{\text{OPD}}`,
    sign: 'λ_opd becomes 0 at retirement (adaptive) or as the schedule says.',
    lookFor: 'Override it with student.lambdaOpd=…; its size does not change when the gate fires.',
    anchor: 'opd-lambda',
  },
  delta: {
    title: 'δ — alignment threshold',
    what: 'The gate retires only when ρ ≤ δ: the gap must have stopped shrinking (by more than δ).',
    formula: String.raw`\rho \le \delta`,
    sign: 'Default 0. A larger δ retires earlier (a gap still shrinking slowly counts as stalled).',
    lookFor: 'Move it and watch the trigger step: the paper reports it moves only about ±5 steps.',
    anchor: 'gate-decision',
  },
  gamma: {
    title: 'γ — competence threshold',
    what: 'The gate retires only when η ≥ γ: the student must score at least γ·S_T on average.',
    formula: String.raw`\eta \ge \gamma`,
    sign: 'Default 0.9; γ ≥ 0. A larger γ retires later (or never).',
    lookFor: 'Raise it above the student’s best η and the teacher never retires.',
    anchor: 'gate-decision',
  },
  window: {
    title: 'W — window size',
    what: 'Training steps per window of K values. Windows do not overlap; each validation evaluates at most one.',
    formula: String.raw`\bar K_m = \frac{1}{W}\sum_{k=(m-1)W+1}^{mW} K_k`,
    sign: 'A positive integer; default 5.',
    lookFor: 'A larger W smooths ρ but delays every evaluation; with validations rarer than windows, evaluations lag.',
    anchor: 'gate-windows',
  },
  teacher_performance: {
    title: 'S_T — teacher performance',
    what: 'The frozen teacher’s validation score on the same split and metric as the student’s. It scales η.',
    formula: String.raw`S_T > 0`,
    lookFor: 'A smaller S_T makes η larger, so the student counts as competent sooner.',
    anchor: 'teacher',
  },
  epsilon: {
    title: 'ε — denominator epsilon',
    what: 'ρ is computed only when the previous window mean is farther than ε from zero.',
    formula: String.raw`|\bar K_{m-1}| > \varepsilon`,
    sign: 'Default 1e−8.',
    lookFor: 'An evaluation with |K̄ₘ₋₁| ≤ ε is not valid and cannot retire the teacher.',
    anchor: 'gate-criterion-valid',
  },
  schedule: {
    title: 'schedule rule',
    what:
      'How λ_opd changes during training: adaptive (the gate: ρ ≤ δ and η ≥ γ), alignment-only (ρ ≤ δ), competence-only ' +
      '(η ≥ γ), never (OPD throughout), none (pure GRPO), fixed:N (retire at step N), linear:N (anneal to 0 by step N).',
    formula: String.raw`\lambda_k = \begin{cases}\lambda_{\text{opd}} & \text{before retirement}\\ 0 & \text{after}\end{cases}`,
    lookFor: 'The paper’s ablation: OPD throughout 82.8 % vs RetireOPD 92.2 %.',
    anchor: 'gate-schedules',
  },
  estimator: {
    title: 'OPD estimator',
    what:
      'How the distillation loss is estimated on the sampled action tokens: k3 (the public code’s default), full (the ' +
      'exact reverse KL over the tiny vocabulary) or naive (a teaching ablation whose expected gradient is zero).',
    formula: String.raw`\text{k3: } r_t\,(e^{-\ell_t} - 1 + \ell_t),\quad \ell_t = \log\pi_\theta(y_t) - \log\pi_T(y_t \mid c^+)`,
    sign: 'ℓ_t > 0 where the student puts more mass on its own token than the teacher does.',
    lookFor: 'naive trains nothing in expectation: compare it with k3 on the same seed.',
    anchor: 'opd-estimators',
  },
  distill_form: {
    title: 'distillation form',
    what:
      'Which of the field’s distillation forms the student runs: reverse-kl (the lab’s OPD, the estimator above), ' +
      'topk-forward-kl (verl: forward KL over the teacher’s top k tokens plus an “other” bucket), kl-reward (the ' +
      'per-token reverse-KL estimate as a reward in the policy gradient), gkd-jsd (TRL GKD’s generalized JSD with β; ' +
      'with GKD’s λ < 1, a step distils on the teacher’s own samples with probability 1 − λ; GRPO and the gap stay ' +
      'on the student’s rollout) ' +
      'or self-distill (the student itself, with the skill in context, as a frozen teacher refreshed every N steps).',
    formula: String.raw`\text{JSD}_\beta = \beta\,\mathrm{KL}(\pi_T \,\|\, M) + (1-\beta)\,\mathrm{KL}(\pi_\theta \,\|\, M),\quad M = \beta\pi_T + (1-\beta)\pi_\theta`,
    sign:
      'Every form sees the same gap g = log π_T − log π_old, so the gate’s K̄ₘ means the same under each; kl-reward’s ' +
      'reward c_t = −(log π_old − log π_T) is ≤ 0 where the student over-weights its own token.',
    lookFor:
      'The distill-forms preset pairs each form with reverse-kl (k3) on the same seeds: an interval that holds zero ' +
      'is no measurable difference.',
    anchor: 'opd-forms',
  },
  teacher_forward_skipped: {
    title: 'teacher forwards saved',
    what: 'Training steps after the trigger: teacher forward passes a retiring run does not make.',
    formula: String.raw`\text{saved} = \#\{k > \text{trigger step}\}`,
    lookFor: 'Earlier retirement saves more compute — if the student no longer needs the teacher.',
    anchor: 'gate-retirement',
  },
} as const satisfies Record<string, Explanation>;

export type ExplanationId = keyof typeof EXPLANATIONS;
export const EXPLANATION_IDS = Object.keys(EXPLANATIONS) as ExplanationId[];

/** The method spec the explanations link to, relative to the repository (and the dev server's) root. */
const METHODS_PATH = 'docs/METHODS.md';

export function explanation(id: ExplanationId): Explanation {
  return EXPLANATIONS[id];
}

export function methodsLink(id: ExplanationId): string {
  return `${METHODS_PATH}#${EXPLANATIONS[id].anchor}`;
}
