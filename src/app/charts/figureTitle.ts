// A downloaded figure's title, in words that stand alone on a slide or in a paper: what is plotted, on which preset,
// over which seeds — "Validation success, retire-shell, seeds 1000–1009" — never the run log's key
// (`val/success_rate`) or a config key alone.
import { METRIC } from '../../core/runLog/metricKeys';

/** The run log's metrics in words (keys as core/runLog/metricKeys.ts names them); others keep their key. */
const METRIC_WORDS: Readonly<Record<string, string>> = {
  [METRIC.valSuccessRate]: 'Validation success',
  [METRIC.rolloutSuccessRate]: 'Rollout success',
  [METRIC.testSuccessRate]: 'Test success',
  [METRIC.testRewardMean]: 'Mean test reward',
  [METRIC.actorEntropy]: 'Entropy of the sampled action tokens (nats/token)',
  [METRIC.actorLoss]: 'Policy loss',
  [METRIC.actorPgLoss]: 'Policy-gradient loss',
  [METRIC.actorGradNorm]: 'Policy gradient norm',
  [METRIC.actorKlLoss]: 'KL loss',
  [METRIC.opdLoss]: 'Distillation loss',
  [METRIC.opdK3Kl]: 'k3 KL estimate of student to teacher',
  [METRIC.opdTeacherStudentGapMean]: 'Mean teacher–student gap g',
  [METRIC.criticFracRewardZeroStd]: 'Share of groups with all-equal rewards',
  [METRIC.sftLoss]: 'SFT loss',
  [METRIC.sftActionCe]: 'SFT action cross-entropy',
  [METRIC.sftObsCe]: 'SFT observation cross-entropy',
  [METRIC.sftGradCosine]: 'Cosine of the action and observation loss gradients',
  [METRIC.timeStepMs]: 'Step time (ms)',
  [METRIC.timeTokensPerS]: 'Sampled tokens per second',
};

/** A metric key in words ("val/success_rate" → "Validation success"); an unknown key as it is. */
export const metricWords = (key: string): string => METRIC_WORDS[key] ?? key;

/** Seeds in words: "seed 1000", "seeds 1000–1009" (a run of consecutive seeds), "seeds 0, 2, 5". */
export function seedsText(seeds: readonly number[]): string {
  const s = [...new Set(seeds)].sort((a, b) => a - b);
  if (s.length === 0) return 'no seeds';
  if (s.length === 1) return `seed ${s[0]}`;
  const consecutive = s.every((x, i) => i === 0 || x === s[i - 1]! + 1);
  return consecutive && s.length > 2 ? `seeds ${s[0]}–${s[s.length - 1]}` : `seeds ${s.join(', ')}`;
}

/** "<what>, <preset(s)>, <seeds>": the presets joined by "+" as a sweep of several presets is named. */
export function figureTitle(what: string, presets: readonly string[], seeds: readonly number[]): string {
  const names = [...new Set(presets)].filter((p) => p !== '');
  return [what, names.join('+'), seedsText(seeds)].filter((p) => p !== '').join(', ');
}
