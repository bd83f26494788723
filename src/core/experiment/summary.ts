// The summary of one finished (or stopped) run: what summary.json holds and what sweeps compare.
// Success rates are fractions in [0, 1]; entropies in nats per token; times in seconds.
import type { FactOutcome } from './factOutcome';

export interface PolicyEvaluation {
  successRate: number;
  rewardMean: number;
  /** pass@k with the unbiased estimator over evaluation.passN attempts per task, keyed by k */
  passAtK: Record<string, number>;
  /** mean entropy (nats) of the sampling distribution per token class of the policy's own tokens */
  entropyByClass: { actionHead: number; actionArg: number };
  /** KL(π_init ‖ π) on the fixed probe set (nats per action token); π_init = the SFT policy */
  klFromInit: number;
}

/** The temperature-matched evaluation (evaluation.matchArgEntropy): see core/temperatureMatch.ts. */
export interface MatchedTemperature {
  /** the argument-token entropy to match (nats; in a sweep, the reference arm's probeEntropy.actionArg) */
  target: number;
  temperature: number;
  /** probe argument-token entropy reached at `temperature` */
  argEntropy: number;
  /** |argEntropy − target| within the bisection's tolerance */
  converged: boolean;
  /** test success when sampling at `temperature` */
  successRate: number;
  passAtK: Record<string, number>;
}

export interface RunSummary {
  name: string;
  seed: number;
  env: string;
  schedule: string;
  estimator: string;
  lambdaObs: number;
  /** 'completed' | 'interrupted' | 'failed' */
  status: 'completed' | 'interrupted' | 'failed';
  error: string | null;
  /** observation CE on held-out expert trajectories (nats/token): untrained base vs after SFT */
  sft: { observationCeBase: number; observationCe: number; actionCe: number; gradientCosineLast: number | null } | null;
  /** S_T: the frozen teacher's validation score (the gate's metric) */
  teacherPerformance: number | null;
  gate: {
    retired: boolean;
    triggerStep: number | null;
    teacherForwardRun: number;
    teacherForwardSkipped: number;
    /** cumulative sampled tokens and environment interactions at retirement (null if never retired) */
    tokensAtRetirement: number | null;
    envStepsAtRetirement: number | null;
  };
  /** best and last student validation score */
  validation: { best: number; last: number } | null;
  test: PolicyEvaluation;
  /**
   * ActObs temperature control (evaluation.temperatures non-empty): temperature 1 first, then each extra
   * temperature: test success when sampling at T, and the mean entropy of softmax(logits/T) at action-argument
   * positions of the fixed probe set (nats).
   */
  temperatureControl: { temperature: number; successRate: number; argEntropy: number }[];
  /**
   * Mean entropy (nats) of the final policy's temperature-1 distribution at action-head and action-argument
   * positions of the fixed probe set (the quantity the temperature matching matches); null if not evaluated.
   */
  probeEntropy: { actionHead: number; actionArg: number } | null;
  /** evaluation.matchArgEntropy set: the temperature whose probe argument entropy matches it, and success there */
  matchedTemperature: MatchedTemperature | null;
  /**
   * test success at T = 1 per misleading skill entry (the facts a skill-following teacher gets wrong; see
   * factOutcome.ts); absent in summaries written before it was recorded
   */
  misleadingFacts?: FactOutcome[];
  /** mean wall ms per student step before and after retirement (null when a phase had no steps) */
  stepMs: { beforeRetirement: number | null; afterRetirement: number | null };
  wallSeconds: number;
  backend: string;
}
