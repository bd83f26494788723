// Gradient geometry of ActObs (docs/METHODS.md §1): how the observation loss's gradient relates to the action loss's.
//   g_act = ∇θ action-only loss, g_obs = ∇θ observation-only loss, both over ALL parameters flattened;
//   cosine = ⟨g_act, g_obs⟩ / (‖g_act‖‖g_obs‖), normRatio = ‖g_obs‖ / ‖g_act‖.
// Two extra backward passes: run it every N steps, not every step.
import * as tf from '@tensorflow/tfjs';
import { weightedSftLoss, type SftInputs } from './actObsLoss';

export interface GradientGeometry {
  /** cos(g_act, g_obs); NaN when either gradient is zero */
  cosine: number;
  /** ‖g_obs‖ / ‖g_act‖; NaN when ‖g_act‖ = 0 */
  normRatio: number;
  actionGradNorm: number;
  observationGradNorm: number;
}

/**
 * Geometry of two loss gradients over `varList` (default: all trainable variables). Each loss function must build
 * its forward pass inside (it runs under the gradient tape). A variable that one loss does not reach counts as a
 * zero gradient there. Leaves no tensors behind.
 */
export async function gradientGeometry(
  actionLoss: () => tf.Scalar,
  observationLoss: () => tf.Scalar,
  varList?: tf.Variable[],
): Promise<GradientGeometry> {
  const ga = tf.variableGrads(actionLoss, varList);
  const go = tf.variableGrads(observationLoss, varList);
  try {
    const packed = tf.tidy(() => {
      const zero = tf.scalar(0);
      let dot: tf.Scalar = zero;
      let na: tf.Scalar = zero;
      let no: tf.Scalar = zero;
      for (const [name, a] of Object.entries(ga.grads)) {
        na = tf.add(na, tf.sum(tf.square(a)));
        const o = go.grads[name];
        if (o !== undefined) dot = tf.add(dot, tf.sum(tf.mul(a, o)));
      }
      for (const o of Object.values(go.grads)) no = tf.add(no, tf.sum(tf.square(o)));
      return tf.stack([dot, na, no]);
    });
    const d = await packed.data();
    packed.dispose();
    const dot = d[0] ?? Number.NaN;
    const an = Math.sqrt(d[1] ?? Number.NaN);
    const on = Math.sqrt(d[2] ?? Number.NaN);
    return {
      cosine: an > 0 && on > 0 ? dot / (an * on) : Number.NaN,
      normRatio: an > 0 ? on / an : Number.NaN,
      actionGradNorm: an,
      observationGradNorm: on,
    };
  } finally {
    ga.value.dispose();
    go.value.dispose();
    tf.dispose(Object.values(ga.grads));
    tf.dispose(Object.values(go.grads));
  }
}

/**
 * ActObs geometry: g_act from the action-only loss (ActionSFT, λ = 0) and g_obs from the observation-only loss
 * (per-sequence mean over observation targets, mean over sequences). `forward` runs the model and returns logits
 * [B, T, V]; it is called once per loss.
 */
export function actObsGradientGeometry(
  forward: () => tf.Tensor,
  targets: tf.Tensor,
  targetClasses: tf.Tensor,
  varList?: tf.Variable[],
): Promise<GradientGeometry> {
  const lossWith = (actionWeight: number, observationWeight: number) => (): tf.Scalar => {
    const inputs: SftInputs = { logits: forward(), targets, targetClasses };
    const out = weightedSftLoss(inputs, actionWeight, observationWeight);
    return out.loss;
  };
  return gradientGeometry(lossWith(1, 0), lossWith(0, 1), varList);
}
