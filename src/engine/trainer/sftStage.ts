// Demonstrations and the SFT stage (METHODS.md §1): scripted trajectories on training tasks (by role: a
// skill-free demonstrator in the student's view, a skill-reading one in the teacher's view), ActObs / ActionSFT
// updates with observation weight λ_obs, the gradient geometry every N steps, and probe evaluations
// (action / observation CE on held-out demonstrations, KL(π_init ‖ π) on action positions).
import * as tf from '@tensorflow/tfjs';
import type { AgentEnv, Trajectory } from '../../core/env/types';
import type { ExperimentConfig } from '../../core/experiment/config';
import { createRng } from '../../core/rng';
import { actObsLoss } from '../losses/actObsLoss';
import { klFromInit } from '../losses/evalMetrics';
import { actObsGradientGeometry } from '../losses/gradientGeometry';
import { actionMask, classMask } from '../losses/lossTypes';
import { tokenEntropy, tokenLogProbs } from '../losses/tokenLogProbs';
import { TokenClass } from '../../core/env/types';
import type { PolicyModel } from '../model';
import type { TrainerOptimizer } from './enginePort';
import { checkedUpdate } from './checkedUpdate';
import { disposeTensors, packSequences, toTensors } from './sequenceBatch';

export interface Demonstrations {
  /** student-view trajectories of demonstrations.studentPolicy on training tasks 0..demonstrations.tasks−1 */
  train: Trajectory[];
  /**
   * trajectories of demonstrations.teacherPolicy on the same tasks, shown with the skill segment in front for a
   * fraction sft.skillViewFraction of SFT samples (empty when that fraction is 0)
   */
  teacherView: Trajectory[];
  /** studentPolicy trajectories on validation tasks 0..sft.heldOutTasks−1 (observation CE of base vs SFT) */
  heldOut: Trajectory[];
}

/** Seeds of the demonstrators' own choices: fixed per run seed, apart from every other stream. */
const DEMO_SALT = 0xde70;

export function buildDemonstrations(env: AgentEnv, cfg: ExperimentConfig): Demonstrations {
  const d = cfg.demonstrations;
  const train = Array.from({ length: d.tasks }, (_, i) => env.task('train', i));
  const heldOut = Array.from({ length: cfg.sft.heldOutTasks }, (_, i) => env.task('validation', i));
  return {
    train: env.demonstrate(train, d.studentPolicy, cfg.seed ^ DEMO_SALT),
    teacherView:
      cfg.sft.skillViewFraction > 0 ? env.demonstrate(train, d.teacherPolicy, cfg.seed ^ (DEMO_SALT + 1)) : [],
    heldOut: env.demonstrate(heldOut, d.studentPolicy, cfg.seed ^ (DEMO_SALT + 2)),
  };
}

export interface SftStepRequest {
  model: PolicyModel;
  optimizer: TrainerOptimizer;
  demos: Demonstrations;
  cfg: ExperimentConfig;
  step: number;
  /** seeds the minibatch draw of this step */
  seed: number;
  injectNonFinite?: string | null;
}

/** One SFT update on a random minibatch of demonstrations (drawn with replacement). Returns the step's metrics. */
export async function sftStep(req: SftStepRequest): Promise<Record<string, number>> {
  const { model, demos, cfg } = req;
  if (demos.train.length === 0) throw new Error('sft: no demonstrations (demonstrations.tasks is 0 but sft.steps > 0)');
  const rng = createRng(req.seed);
  const batch = Array.from({ length: cfg.sft.batchSize }, () => {
    const i = rng.int(demos.train.length);
    const skill = cfg.sft.skillViewFraction > 0 && rng.next() < cfg.sft.skillViewFraction;
    if (!skill) return demos.train[i] as Trajectory;
    const d = (demos.teacherView[i] ?? demos.train[i]) as Trajectory;
    return { ...d, prefix: d.task.skillTokens };
  });
  const t = toTensors(packSequences(batch));
  try {
    const { host } = await checkedUpdate({
      stage: 'sft',
      step: req.step,
      optimizer: req.optimizer,
      variables: model.trainableVariables,
      finiteTerms: { loss: 'sft' },
      loss: () => {
        const out = actObsLoss(
          { logits: model.forward(t.tokens), targets: t.targets, targetClasses: t.targetClasses },
          cfg.sft.lambdaObs,
        );
        const loss = req.injectNonFinite === 'sft' ? (tf.mul(out.loss, NaN) as tf.Scalar) : out.loss;
        return { loss, stats: out.stats };
      },
    });
    const m: Record<string, number> = {
      'sft/loss': host.loss,
      'sft/action_ce': host.actionCE,
      'sft/obs_ce': host.observationCE,
      'sft/action_tokens': host.actionTokens,
      'sft/obs_tokens': host.observationTokens,
      'sft/grad_norm': Math.sqrt(host.gradNormSq),
    };
    const every = cfg.sft.geometryEvery;
    if (every > 0 && req.step % every === 0) {
      const geo = await actObsGradientGeometry(
        () => model.forward(t.tokens),
        t.targets,
        t.targetClasses,
        model.trainableVariables,
      );
      m['sft/grad_cosine'] = geo.cosine;
      m['sft/grad_norm_ratio'] = geo.normRatio;
    }
    return m;
  } finally {
    disposeTensors(t);
  }
}

export interface ProbeResult {
  observationCe: number;
  actionCe: number;
  /** KL(π_init ‖ π) per action position, when `init` was given */
  klFromInit: number | null;
}

/** Token-weighted CE per stream (and KL to `init` on action positions) over trajectories, in chunks of 32. */
export async function evaluateProbes(
  model: PolicyModel,
  trajs: readonly Trajectory[],
  init?: PolicyModel,
): Promise<ProbeResult> {
  const acc = { obs: 0, obsN: 0, act: 0, actN: 0, kl: 0 };
  for (let i = 0; i < trajs.length; i += 32) {
    const t = toTensors(packSequences(trajs.slice(i, i + 32)));
    const packed = tf.tidy(() => {
      const logits = model.forward(t.tokens);
      const nll = tf.neg(tokenLogProbs(logits, t.targets));
      const mO = classMask(t.targetClasses, TokenClass.observation);
      const mA = actionMask(t.targetClasses);
      const nA = tf.sum(mA);
      const parts = [tf.sum(tf.mul(nll, mO)), tf.sum(mO), tf.sum(tf.mul(nll, mA)), nA];
      if (init) parts.push(tf.mul(klFromInit(init.forward(t.tokens), logits, mA), nA));
      return tf.stack(parts);
    });
    const d = await packed.data();
    packed.dispose();
    disposeTensors(t);
    acc.obs += d[0] as number;
    acc.obsN += d[1] as number;
    acc.act += d[2] as number;
    acc.actN += d[3] as number;
    if (init) acc.kl += d[4] as number;
  }
  return {
    observationCe: acc.obsN ? acc.obs / acc.obsN : NaN,
    actionCe: acc.actN ? acc.act / acc.actN : NaN,
    klFromInit: init ? (acc.actN ? acc.kl / acc.actN : NaN) : null,
  };
}

/**
 * Mean entropy (nats) of the temperature-T sampling distribution softmax(logits / T) at the positions that predict
 * action-head and action-argument targets of a fixed probe set (expert trajectories): the "entropy at temperature T"
 * the ActObs temperature control matches.
 */
export async function probeEntropyAt(
  model: PolicyModel,
  trajs: readonly Trajectory[],
  temperature: number,
): Promise<{ actionHead: number; actionArg: number }> {
  const acc = { head: 0, headN: 0, arg: 0, argN: 0 };
  for (let i = 0; i < trajs.length; i += 32) {
    const t = toTensors(packSequences(trajs.slice(i, i + 32)));
    const packed = tf.tidy(() => {
      const h = tokenEntropy(tf.div(model.forward(t.tokens), temperature)); // [B, T]
      const mH = classMask(t.targetClasses, TokenClass.actionHead);
      const mA = classMask(t.targetClasses, TokenClass.actionArg);
      return tf.stack([tf.sum(tf.mul(h, mH)), tf.sum(mH), tf.sum(tf.mul(h, mA)), tf.sum(mA)]);
    });
    const d = await packed.data();
    packed.dispose();
    disposeTensors(t);
    acc.head += d[0] as number;
    acc.headN += d[1] as number;
    acc.arg += d[2] as number;
    acc.argN += d[3] as number;
  }
  return { actionHead: acc.headN ? acc.head / acc.headN : NaN, actionArg: acc.argN ? acc.arg / acc.argN : NaN };
}
