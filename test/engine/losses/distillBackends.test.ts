// The distillation forms on every Node backend (docs/METHODS.md §3, distillation forms): topk-forward-kl, gkd-jsd and
// kl-reward are stock tfjs ops on webgpu too (no fused kernel: src/engine/losses/distillLoss.ts says why), and so is
// gkd-jsd on a teacher-sampled batch (GKD's λ < 1, teacherSampledJsd), so their value and gradient on wasm and
// webgpu (Dawn on SwiftShader) must match cpu: norm-wise relative 1e-5 (wasm) and 1e-4 (webgpu), as
// backendParity.test.ts. A backend that cannot start here is skipped with the reason printed.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../../../src/engine/backend';
import { distillLoss, teacherSampledJsd, type DistillSpec } from '../../../src/engine/losses/distillLoss';
import { expectClose } from './assertions';
import { caseTensors, makeCase } from './reference';

const TOLERANCE = { wasm: 1e-5, webgpu: 1e-4 } as const;
const FORMS: DistillSpec[] = [
  { form: 'topk-forward-kl', estimator: 'k3', topK: 3, beta: 0.5 },
  { form: 'gkd-jsd', estimator: 'k3', topK: 3, beta: 0.3 },
  { form: 'kl-reward', estimator: 'k3', topK: 3, beta: 0.5 },
];

/** Value, gradient w.r.t. the logits and the gap statistic of each form, on the current backend. */
async function outputs(): Promise<number[][]> {
  const c = makeCase(61, 3, 6, 9);
  const t = caseTensors(c);
  const x = tf.tensor3d(Float32Array.from(c.logits), [c.B, c.T, c.V]);
  const out: number[][] = [];
  for (const spec of FORMS) {
    let gap: tf.Scalar | undefined;
    const { value, grad } = tf.valueAndGrad((z: tf.Tensor) => {
      const o = distillLoss({ logits: z, ...t }, spec);
      gap = tf.keep(o.stats.gap);
      return o.loss;
    })(x);
    out.push([...(await value.data())], [...(await grad.data())], [...(await gap!.data())]);
    tf.dispose([value, grad, gap!]);
  }
  // gkd-jsd on a teacher-sampled batch (GKD's λ < 1): the case's targets stand for the teacher's tokens
  const { value, grad } = tf.valueAndGrad(
    (z: tf.Tensor) =>
      teacherSampledJsd({ logits: z, teacherLogits: t.teacherLogits, targetClasses: t.targetClasses }, 0.3).loss,
  )(x);
  out.push([...(await value.data())], [...(await grad.data())]);
  tf.dispose([value, grad]);
  x.dispose();
  t.dispose();
  return out;
}

describe('the distillation forms on wasm and webgpu (cpu is the reference)', () => {
  for (const backend of ['wasm', 'webgpu'] as const) {
    it(`${backend}: every form's value, gradient and gap within ${TOLERANCE[backend]} of cpu`, async (ctx) => {
      await initBackend('cpu');
      const want = await outputs();
      try {
        await initBackend(backend);
      } catch (e) {
        console.warn(`SKIPPED ${backend}: ${e instanceof Error ? e.message : String(e)}`);
        ctx.skip();
        return;
      }
      expect(tf.getBackend()).toBe(backend);
      const got = await outputs();
      got.forEach((g, i) => expectClose(g, want[i]!, TOLERANCE[backend]));
    });
  }
});
