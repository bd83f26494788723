// The evaluation stage (docs/METHODS.md §6): on the final policy, test success and pass@k (n = evaluation.passN attempts
// per test task), entropy per policy-token class of its own samples, KL(π_init ‖ π) on a fixed probe set, and the
// ActObs temperature control (test success when sampling hotter, with the argument-token entropy of the
// temperature-T distribution on the probe set, and — with evaluation.matchArgEntropy — test success at the
// temperature whose probe argument-token entropy matches a target, found by bisection: core/temperatureMatch.ts), and
// the temperature-1 test success per misleading skill entry (core/experiment/factOutcome.ts).
import { TokenClass, type AgentEnv } from '../../../core/env/types';
import type { ExperimentConfig } from '../../../core/experiment/config';
import type { MatchedTemperature, PolicyEvaluation, RunSummary } from '../../../core/experiment/summary';
import { misleadingFacts, type FactOutcome } from '../../../core/experiment/factOutcome';
import { meanPassAtK } from '../../../core/passAtK';
import { DEFAULT_TEMPERATURE_MATCH, matchTemperature } from '../../../core/temperatureMatch';
import type { PolicyModel } from '../../model';
import type { EnginePort } from '../enginePort';
import type { TrainerEventSink } from '../events';
import { evaluateProbes, probeEntropyAt } from '../probes';
import { rolloutMetrics } from '../rolloutMetrics';
import { fixedSeed } from '../seeds';
import type { StageContext } from './stageContext';
import { METRIC } from '../../../core/runLog/metricKeys';

export interface EvaluationStageRequest {
  cfg: ExperimentConfig;
  env: AgentEnv;
  engine: EnginePort;
  /** the policy evaluated (the student, else the teacher, else the SFT policy) */
  policy: PolicyModel;
  /** π_init of KL(π_init ‖ π): the SFT policy */
  init: PolicyModel;
  /** seeds the test-split sampling (the same seed at every temperature) */
  testSeed: number;
  emit: TrainerEventSink;
  /**
   * The trainer's stop hook, awaited between the stage's parts (each a rollout or a probe pass, about one training
   * step long): it yields to the event loop and throws when a stop was requested.
   */
  stopPoint?: () => Promise<void>;
}

export interface EvaluationStageResult {
  test: PolicyEvaluation;
  temperatureControl: RunSummary['temperatureControl'];
  /** probe-set entropy per action class of the temperature-1 distribution */
  probeEntropy: { actionHead: number; actionArg: number };
  matchedTemperature: MatchedTemperature | null;
  /** test success at T = 1 per misleading skill entry (core/experiment/factOutcome.ts) */
  misleadingFacts: FactOutcome[];
}

/** A policy evaluation with its per-fact split (kept out of PolicyEvaluation: the final event stays as it was). */
type EvaluationWithFacts = { evaluation: PolicyEvaluation; facts: FactOutcome[] };

/** Success, pass@k (n = passN per task) and entropy per policy-token class on the test split, sampling at T. */
async function evaluatePolicy(
  req: Omit<EvaluationStageRequest, 'init' | 'emit' | 'stopPoint'>,
  temperature: number,
): Promise<EvaluationWithFacts> {
  const ev = req.cfg.evaluation;
  const tasks = Array.from({ length: ev.testTasks }, (_, i) => req.env.task('test', i));
  const episodeTasks = tasks.flatMap((t) => Array.from({ length: ev.passN }, () => t));
  const r = await req.engine.rollout({
    policy: req.policy,
    tasks: episodeTasks,
    withSkill: false,
    temperature,
    seed: req.testSeed,
  });
  const counts = tasks.map((_, t) => {
    let c = 0;
    for (let j = 0; j < ev.passN; j++) c += r.success[t * ev.passN + j] as number;
    return { n: ev.passN, c };
  });
  const passAtK: Record<string, number> = {};
  for (const k of ev.passK) passAtK[String(k)] = meanPassAtK(counts, k);
  const p = r.packed;
  const h = { head: 0, headN: 0, arg: 0, argN: 0 };
  for (let b = 0; b < p.batch; b++) {
    for (let t = 0; t + 1 < (p.lengths[b] as number); t++) {
      const cls = p.classes[b * p.seqLen + t + 1];
      const e = r.entropy[b * p.seqLen + t] as number;
      if (cls === TokenClass.actionHead) {
        h.head += e;
        h.headN++;
      } else if (cls === TokenClass.actionArg) {
        h.arg += e;
        h.argN++;
      }
    }
  }
  const m = rolloutMetrics(r, 'test');
  const evaluation: PolicyEvaluation = {
    successRate: m[METRIC.testSuccessRate] as number,
    rewardMean: m[METRIC.testRewardMean] as number,
    passAtK,
    entropyByClass: { actionHead: h.headN ? h.head / h.headN : NaN, actionArg: h.argN ? h.arg / h.argN : NaN },
    klFromInit: NaN,
  };
  return { evaluation, facts: misleadingFacts(episodeTasks, r.success) };
}

/** Run the evaluation stage; emits the final evaluation event as soon as the temperature-1 results are in. */
async function runEvaluationStage(req: EvaluationStageRequest): Promise<EvaluationStageResult> {
  const { cfg, env, policy } = req;
  const ev = cfg.evaluation;
  const stopPoint = req.stopPoint ?? (async () => undefined);
  const { evaluation: test, facts } = await evaluatePolicy(req, 1);
  await stopPoint();
  // the fixed probe set: expert trajectories on the first probeTasks test tasks
  const probes = Array.from({ length: ev.probeTasks }, (_, i) => env.expert(env.task('test', i)));
  const kl = await evaluateProbes(policy, probes, req.init);
  // entropy per class of the policy's own samples (temperature 1) is in `test`; probe entropies are below
  test.klFromInit = kl.klFromInit ?? NaN;
  req.emit({ type: 'evaluation', kind: 'final', result: test });
  await stopPoint();
  const h1 = await probeEntropyAt(policy, probes, 1);
  // temperature control: success when sampling hotter, and the argument-token entropy of the temperature-T
  // distribution on the probe set (temperature 1 first, as the reference)
  const temperatureControl: RunSummary['temperatureControl'] = [];
  if (ev.temperatures.length > 0) {
    temperatureControl.push({ temperature: 1, successRate: test.successRate, argEntropy: h1.actionArg });
  }
  for (const temperature of ev.temperatures) {
    await stopPoint();
    const { evaluation: e } = await evaluatePolicy(req, temperature);
    await stopPoint();
    const h = await probeEntropyAt(policy, probes, temperature);
    temperatureControl.push({ temperature, successRate: e.successRate, argEntropy: h.actionArg });
  }
  let matchedTemperature: MatchedTemperature | null = null;
  const target = ev.matchArgEntropy;
  if (target !== null) {
    if (!Number.isFinite(h1.actionArg)) {
      req.emit({
        type: 'warning',
        message: 'evaluation.matchArgEntropy: the probe set has no argument tokens; temperature matching skipped',
      });
    } else {
      const m = await matchTemperature(async (T) => {
        await stopPoint();
        return T === 1 ? h1.actionArg : (await probeEntropyAt(policy, probes, T)).actionArg;
      }, target);
      if (!m.converged) {
        req.emit({
          type: 'warning',
          message: `evaluation.matchArgEntropy: no temperature in [${DEFAULT_TEMPERATURE_MATCH.minTemperature}, ${DEFAULT_TEMPERATURE_MATCH.maxTemperature}] gives argument entropy ${target.toFixed(4)} within ${DEFAULT_TEMPERATURE_MATCH.tolerance} nats; nearest T = ${m.temperature.toFixed(4)} (entropy ${m.entropy.toFixed(4)})`,
        });
      }
      await stopPoint();
      const e = m.temperature === 1 ? test : (await evaluatePolicy(req, m.temperature)).evaluation;
      matchedTemperature = {
        target,
        temperature: m.temperature,
        argEntropy: m.entropy,
        converged: m.converged,
        successRate: e.successRate,
        passAtK: e.passAtK,
      };
    }
  }
  return { test, temperatureControl, probeEntropy: h1, matchedTemperature, misleadingFacts: facts };
}

/** The evaluation stage of a run: the final policy (the student, else the teacher, else the SFT policy). */
export function runEvaluation(ctx: StageContext): Promise<EvaluationStageResult> {
  const m = ctx.models;
  return runEvaluationStage({
    cfg: ctx.cfg,
    env: ctx.env,
    engine: ctx.engine,
    policy: m.student ?? m.teacher ?? m.init!,
    init: m.init!,
    testSeed: fixedSeed(ctx.cfg.seed, 'test'),
    emit: ctx.emit,
    stopPoint: () => ctx.stopPoint(),
  });
}
