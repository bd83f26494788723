// Probe evaluations of a policy on fixed trajectories (teacher-forced, no sampling): cross-entropy per stream and
// KL(π_init ‖ π) on action positions (SFT's before/after and the evaluation's KL), and the entropy of the
// temperature-T distribution at action positions (the ActObs temperature control). Chunks of 32 trajectories.
import * as tf from '@tensorflow/tfjs';
import { TokenClass, type Trajectory } from '../../core/env/types';
import { klFromInit } from '../losses/evalMetrics';
import { actionMask, classMask } from '../losses/lossTypes';
import { tokenEntropy, tokenLogProbs } from '../losses/tokenLogProbs';
import type { PolicyModel } from '../model';
import { disposeTensors, packSequences, toTensors, type SequenceTensors } from '../sequenceBatch';

const CHUNK = 32;

/** Sums, over chunks of `trajs`, the vector of scalars `parts` computes for each chunk (one readback a chunk). */
async function sumOverChunks(
  trajs: readonly Trajectory[],
  size: number,
  parts: (t: SequenceTensors) => tf.Tensor[],
): Promise<Float64Array> {
  const acc = new Float64Array(size);
  for (let i = 0; i < trajs.length; i += CHUNK) {
    const t = toTensors(packSequences(trajs.slice(i, i + CHUNK)));
    const packed = tf.tidy(() => tf.stack(parts(t)));
    const d = await packed.data();
    packed.dispose();
    disposeTensors(t);
    for (let j = 0; j < size; j++) acc[j] = (acc[j] as number) + (d[j] as number);
  }
  return acc;
}

export interface ProbeResult {
  observationCe: number;
  actionCe: number;
  /** KL(π_init ‖ π) per action position, when `init` was given */
  klFromInit: number | null;
}

/** Token-weighted CE per stream (and KL to `init` on action positions) over trajectories. */
export async function evaluateProbes(
  model: PolicyModel,
  trajs: readonly Trajectory[],
  init?: PolicyModel,
): Promise<ProbeResult> {
  const [obs, obsN, act, actN, kl] = await sumOverChunks(trajs, init ? 5 : 4, (t) => {
    const logits = model.forward(t.tokens, t.lengths);
    const nll = tf.neg(tokenLogProbs(logits, t.targets));
    const mO = classMask(t.targetClasses, TokenClass.observation);
    const mA = actionMask(t.targetClasses);
    const nA = tf.sum(mA);
    const parts = [tf.sum(tf.mul(nll, mO)), tf.sum(mO), tf.sum(tf.mul(nll, mA)), nA];
    if (init) parts.push(tf.mul(klFromInit(init.forward(t.tokens, t.lengths), logits, mA), nA));
    return parts;
  });
  return {
    observationCe: obsN ? (obs as number) / obsN : NaN,
    actionCe: actN ? (act as number) / actN : NaN,
    klFromInit: init ? (actN ? (kl as number) / actN : NaN) : null,
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
  const [head, headN, arg, argN] = await sumOverChunks(trajs, 4, (t) => {
    const h = tokenEntropy(tf.div(model.forward(t.tokens, t.lengths), temperature)); // [B, T]
    const mH = classMask(t.targetClasses, TokenClass.actionHead);
    const mA = classMask(t.targetClasses, TokenClass.actionArg);
    return [tf.sum(tf.mul(h, mH)), tf.sum(mH), tf.sum(tf.mul(h, mA)), tf.sum(mA)];
  });
  return {
    actionHead: headN ? (head as number) / headN : NaN,
    actionArg: argN ? (arg as number) / argN : NaN,
  };
}
