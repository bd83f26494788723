// What sharing one pass over the vocabulary between GRPO and OPD saves in a policy update (tokenStats in
// src/engine/losses/tokenLogProbs.ts): the student's forward on retire-shell's policy, both losses and the gradient
// of every parameter, timed with the losses each doing their own log-softmax ("separate") and reading one shared
// pass ("shared"), alternating in one process so that both see the same heap and the same machine load.
// A measurement to report, not a test:
//   npx tsx bench/lossSharing.ts [--backend wasm|cpu] [--steps N]
// Shapes: B = the preset's rollouts per step, T = 30 positions (about a shell episode), real lengths 14–29 tokens.
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { createEnvFor } from '../src/core/experiment/envFactory';
import { validateConfig } from '../src/core/experiment/config';
import { TokenClass } from '../src/core/env/types';
import { initBackend, parseBackendName } from '../src/engine/backend';
import { grpoLoss } from '../src/engine/losses/grpoLoss';
import { opdLoss } from '../src/engine/losses/opdLoss';
import { tokenStats } from '../src/engine/losses/tokenLogProbs';
import { PolicyModel } from '../src/engine/model';
import { modelConfigFor } from '../src/engine/modelConfig';
import { readShippedPreset } from './shippedPreset';

const T = 30;
const { values } = parseArgs({
  options: { backend: { type: 'string', default: 'wasm' }, steps: { type: 'string', default: '60' } },
});
const steps = Number(values.steps);
if (!Number.isSafeInteger(steps) || steps < 1) throw new Error('--steps: an integer ≥ 1');

const backend = await initBackend(parseBackendName(values.backend));
const config = validateConfig(readShippedPreset('retire-shell').config, 'retire-shell');
const modelConfig = modelConfigFor(config, createEnvFor(config));
const B = config.student.grpo.groupSize * config.student.grpo.tasksPerStep;
const model = new PolicyModel(modelConfig, 1, 'loss_sharing');
const tokens = tf.randomUniform([B, T], 0, modelConfig.vocabSize, 'int32', 2) as tf.Tensor2D; // [B, T]
const targets = tf.randomUniform([B, T], 0, modelConfig.vocabSize, 'int32', 3); // [B, T]
const classes = tf.fill([B, T], TokenClass.actionArg, 'int32'); // [B, T]
const oldLogProbs = tf.randomUniform([B, T], -3, -1, 'float32', 4); // [B, T]
const teacherLogProbs = tf.randomUniform([B, T], -3, -1, 'float32', 5); // [B, T]
const advantages = Float32Array.from({ length: B }, (_, i) => (i % 3) - 1);
const lengths = Int32Array.from({ length: B }, (_, i) => 14 + (i % 16));

/** one update's forward, GRPO (with its entropy statistic) + OPD k3, and every parameter's gradient; ms */
function updateMs(shared: boolean): number {
  const t0 = performance.now();
  const { value, grads } = tf.variableGrads(() => {
    const logits = model.forward(tokens, lengths); // [B, T, V]
    const s = shared ? { tokenStats: tokenStats(logits, targets) } : {};
    const common = { logits, targets, targetClasses: classes, oldLogProbs, ...s };
    const g = grpoLoss({ ...common, advantages }, { computeEntropy: true });
    const o = opdLoss({ ...common, teacherLogProbs }, 'k3');
    return tf.add(g.loss, o.loss) as tf.Scalar;
  }, model.trainableVariables);
  value.dataSync();
  tf.dispose([value, ...Object.values(grads)]);
  return performance.now() - t0;
}

const ms = { shared: [] as number[], separate: [] as number[] };
for (let i = 0; i < 5; i++) [true, false].forEach(updateMs);
for (let i = 0; i < steps; i++) {
  ms.shared.push(updateMs(true));
  ms.separate.push(updateMs(false));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`backend ${backend}, tfjs ${tf.version.tfjs}; retire-shell's policy, B = ${B}, T = ${T}`);
console.log(
  `forward + GRPO + OPD + gradients, median of ${steps}: shared ${median(ms.shared).toFixed(1)} ms, ` +
    `separate ${median(ms.separate).toFixed(1)} ms`,
);
