// One fixed, tiny set of loss computations (values, gradients w.r.t. logits, statistics, the gradient geometry of a
// tiny model and one Adam step) that runs unchanged on every backend — in Node (cpu, wasm, webgpu) and in a browser
// page (test/browser/lossParity.ts) — so the results can be compared across backends. Uses no vitest, no DOM.
import * as tf from '@tensorflow/tfjs';
import { actObsLoss } from '../../../src/engine/losses/actObsLoss';
import { entropyByClass, klFromInit, observationCE } from '../../../src/engine/losses/evalMetrics';
import { actObsGradientGeometry } from '../../../src/engine/losses/gradientGeometry';
import { grpoLoss } from '../../../src/engine/losses/grpoLoss';
import type { LossOutput } from '../../../src/engine/losses/lossTypes';
import { opdLoss, type OpdEstimator } from '../../../src/engine/losses/opdLoss';
import { tokenEntropy, tokenLogProbs } from '../../../src/engine/losses/tokenLogProbs';
import { createAdam } from '../../../src/engine/optimizer';
import { caseTensors, makeCase, rng } from './reference';

export type ParityOutputs = Record<string, number[]>;

/** Largest |a − b| over the largest |b| of each output (norm-wise relative error), by output name. */
export function parityErrors(actual: ParityOutputs, expected: ParityOutputs): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, e] of Object.entries(expected)) {
    const a = actual[name];
    if (a === undefined || a.length !== e.length) {
      out[name] = Infinity;
      continue;
    }
    let err = 0;
    let ref = 0;
    e.forEach((x, i) => {
      const d = Math.abs((a[i] ?? NaN) - x);
      err = Number.isFinite(d) ? Math.max(err, d) : Infinity;
      ref = Math.max(ref, Math.abs(x));
    });
    out[name] = err / Math.max(ref, 1e-6);
  }
  return out;
}

/** Runs every case on the active backend. Leaves no tensors behind (checked: `leakedTensors` must be 0). */
export async function computeParityOutputs(): Promise<{ outputs: ParityOutputs; leakedTensors: number }> {
  const before = tf.memory().numTensors;
  const c = makeCase(7, 2, 6, 8);
  const t = caseTensors(c);
  const outputs: ParityOutputs = {};
  const logits = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
  const record = async (name: string, loss: (z: tf.Tensor) => LossOutput<string>) => {
    let stats: Record<string, tf.Scalar> = {};
    const { value, grad } = tf.valueAndGrad((z: tf.Tensor) => {
      const o = loss(z);
      stats = o.stats;
      for (const s of Object.values(stats)) tf.keep(s);
      return o.loss;
    })(logits);
    outputs[`${name}/value`] = Array.from(await value.data());
    outputs[`${name}/grad`] = Array.from(await grad.data());
    for (const [k, s] of Object.entries(stats)) outputs[`${name}/${k}`] = Array.from(await s.data());
    tf.dispose([value, grad, ...Object.values(stats)]);
  };
  try {
    const w = tf.tensor2d(Float32Array.from({ length: c.B * c.T }, rng(3)), [c.B, c.T]);
    await record('tokenLogProbs', (z) => ({
      loss: tf.sum(tf.mul(tokenLogProbs(z, t.targets), w)) as tf.Scalar,
      stats: {},
    }));
    await record('entropy', (z) => ({ loss: tf.sum(tf.mul(tokenEntropy(z), w)) as tf.Scalar, stats: {} }));
    w.dispose();
    const sft = { targets: t.targets, targetClasses: t.targetClasses };
    await record('actObs0', (z) => actObsLoss({ logits: z, ...sft }, 0));
    await record('actObs0.5', (z) => actObsLoss({ logits: z, ...sft }, 0.5));
    const grpoIn = {
      ...sft,
      oldLogProbs: t.oldLogProbs,
      advantages: Float32Array.from(c.advantages),
      refLogProbs: t.refLogProbs,
    };
    await record('grpoTokenMean', (z) => grpoLoss({ logits: z, ...grpoIn }, { clipHigh: 0.28, klCoef: 0.1 }));
    await record('grpoSeqSum', (z) => grpoLoss({ logits: z, ...grpoIn }, { aggregation: 'seq-mean-token-sum' }));
    await record('grpoDualClip', (z) => grpoLoss({ logits: z, ...grpoIn }, { clipRatioC: 1.5, clipHigh: 0.28 }));
    const opdIn = {
      ...sft,
      oldLogProbs: t.oldLogProbs,
      teacherLogProbs: t.teacherLogProbs,
      teacherLogits: t.teacherLogits,
    };
    for (const e of ['k3', 'full', 'naive'] as OpdEstimator[])
      await record(`opd-${e}`, (z) => opdLoss({ logits: z, ...opdIn }, e));

    const ebc = entropyByClass(logits, t.targetClasses);
    outputs['eval/entropyByClass'] = Array.from(await ebc.entropy.data());
    outputs['eval/classCounts'] = Array.from(await ebc.counts.data());
    tf.dispose([ebc.entropy, ebc.counts]);
    const kl = klFromInit(t.teacherLogits, logits);
    const ce = observationCE(logits, t.targets, t.targetClasses);
    outputs['eval/klFromInit'] = Array.from(await kl.data());
    outputs['eval/observationCE'] = Array.from(await ce.data());
    tf.dispose([kl, ce]);

    // a tiny model without gather (wasm has no gather gradient): logits = oneHot(tokens) · E · W + bias
    const r = rng(99);
    const H = 4;
    const [E, W, bias] = tf.tidy(() => [
      tf.variable(
        tf.tensor2d(
          Float32Array.from({ length: c.V * H }, () => r() - 0.5),
          [c.V, H],
        ),
      ),
      tf.variable(
        tf.tensor2d(
          Float32Array.from({ length: H * c.V }, () => r() - 0.5),
          [H, c.V],
        ),
      ),
      tf.variable(tf.zeros([c.V])),
    ]) as [tf.Variable, tf.Variable, tf.Variable];
    const vars = [E, W, bias];
    const inputs = tf.tidy(() =>
      tf.oneHot(
        tf.tensor1d(
          Int32Array.from({ length: c.B * c.T }, () => Math.floor(r() * c.V)),
          'int32',
        ),
        c.V,
      ),
    );
    const forward = () => tf.add(tf.reshape(tf.matMul(tf.matMul(inputs, E), W), [c.B, c.T, c.V]), bias);
    try {
      const geo = await actObsGradientGeometry(forward, t.targets, t.targetClasses, vars);
      outputs['geometry'] = [geo.cosine, geo.normRatio, geo.actionGradNorm, geo.observationGradNorm];
      // two Adam steps with an explicit epsilon (webgl's default would be 1e-4): gradients here are ~1e-3, where
      // the epsilon matters
      const adam = createAdam({ learningRate: 0.05, epsilon: 1e-8 });
      for (let step = 0; step < 2; step++) {
        adam.minimize(() => actObsLoss({ logits: forward(), ...sft }, 1).loss, false, vars);
      }
      outputs['adam/E'] = Array.from(await E.data());
      outputs['adam/W'] = Array.from(await W.data());
      adam.dispose();
    } finally {
      tf.dispose([E, W, bias, inputs]);
    }
  } finally {
    logits.dispose();
    t.dispose();
  }
  return { outputs, leakedTensors: tf.memory().numTensors - before };
}
