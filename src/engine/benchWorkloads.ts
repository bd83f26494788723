// The reference benchmark workloads (their PyTorch twin is bench/pytorch_anchor.py), shared by the Node bench
// (cli/bench.ts) and the browser bench (bench/browser/benchWorker.ts) so both time exactly the same code:
//   W1: one training step (vocab 64, context 128, width 64, 2 layers, 4 heads, MLP 256, batch 64, masked weighted
//       token CE, Adam with an explicit epsilon);
//   W2: a rollout of 64 sequences, 64-token prompt, 32 sampled tokens, with and without the KV cache;
//   loss: the loss path alone at W1's shape — logits [64, 127, 64] → GRPO loss (with entropy and k3 KL) + OPD loss
//       (full reverse KL over the vocabulary), forward and backward w.r.t. the logits. It isolates the kernels the
//       loss functions dispatch (fused kernels, where a backend registers them, are used automatically).
// Timings are wall-clock ms (median/min/max after warm-up); kernels are engine kernel invocations per step, and on
// webgpu gpuPrograms the WGSL programs actually dispatched; readbacks are the tensor reads to the host, each of which
// waits for the device (kernelCounter.ts). W2 runs the training rollouts' own decode loop (turnDecoder.ts, through
// generate.ts), so its kernels and readbacks per token are a rollout's.
import * as tf from '@tensorflow/tfjs';
import { TokenClass } from '../core/env/types';
import { generate } from './generate';
import { countKernels, type KernelCounts } from './kernelCounter';
import { grpoLoss } from './losses/grpoLoss';
import { opdLoss } from './losses/opdLoss';
import { tokenLogProbs } from './losses/tokenLogProbs';
import { PolicyModel } from './model';
import { createAdam } from './optimizer';
import { parameterCount, type ModelConfig } from './modelConfig';
import { SeededRandom } from './sampling';

export const BENCH_MODEL: Readonly<ModelConfig> = {
  vocabSize: 64,
  contextTokens: 128,
  width: 64,
  layers: 2,
  heads: 4,
  mlp: 256,
  tiedHead: false,
};
const BENCH_BATCH = 64;
const BENCH_PROMPT = 64;
const BENCH_NEW_TOKENS = 32;

export type Workload = 'w1' | 'w2cached' | 'w2uncached' | 'loss';
export const WORKLOADS: readonly Workload[] = ['w1', 'w2cached', 'w2uncached', 'loss'];

export interface BenchOptions {
  /** timed W1 steps and loss-path steps */
  steps: number;
  /** timed W2 rollouts per mode */
  rollouts: number;
  /** untimed steps before timing (W1, loss path) */
  warmup: number;
  seed: number;
  workloads: readonly Workload[];
  /** one line per timed step (Node: stderr; browser: the page's console) */
  progress?: (message: string) => void;
}

export interface TimingStats {
  medianMs: number;
  minMs: number;
  maxMs: number;
  n: number;
}

export function parseWorkloads(list: string): Workload[] {
  return list
    .split(',')
    .filter(Boolean)
    .map((w) => {
      if (!(WORKLOADS as readonly string[]).includes(w)) {
        throw new Error(`unknown workload '${w}' (expected ${WORKLOADS.join(', ')})`);
      }
      return w as Workload;
    });
}

export function timingStats(ms: readonly number[]): TimingStats {
  const s = [...ms].sort((a, b) => a - b);
  const r = (x: number): number => Math.round(x * 10) / 10;
  return {
    medianMs: r(s[Math.floor(s.length / 2)] as number),
    minMs: r(s[0] as number),
    maxMs: r(s[s.length - 1] as number),
    n: s.length,
  };
}

function topKernels(k: KernelCounts, n = 8): Record<string, number> {
  return Object.fromEntries(Object.entries(k.byName).slice(0, n));
}

/**
 * Times `step` `steps` times after `warmup` untimed calls and one more untimed call whose kernels are counted (with
 * warm-up 0 that count includes first-call setup, e.g. Adam's slot variables). Leaks are counted over the timed calls.
 */
async function timeSteps(
  label: string,
  step: () => Promise<number>,
  o: BenchOptions,
): Promise<{ stats: TimingStats; kernels: KernelCounts; tensorsLeakedPerStep: number; last: number }> {
  for (let k = 0; k < o.warmup; k++) await step();
  const { result, kernels } = await countKernels(step);
  const tensorsBefore = tf.memory().numTensors;
  const times: number[] = [];
  let last = result;
  for (let k = 0; k < o.steps; k++) {
    const t0 = performance.now();
    last = await step();
    times.push(performance.now() - t0);
    o.progress?.(`${label} step ${k + 1}/${o.steps}: ${(times[k] as number).toFixed(0)} ms`);
  }
  const tensorsLeakedPerStep = (tf.memory().numTensors - tensorsBefore) / o.steps;
  return { stats: timingStats(times), kernels, tensorsLeakedPerStep, last };
}

/** W1: one Adam step of the reference policy on a masked weighted token cross-entropy. */
async function benchTrainStep(o: BenchOptions): Promise<Record<string, unknown>> {
  const model = new PolicyModel(BENCH_MODEL, o.seed, 'bench_w1');
  // the lab's Adam (fused per-variable update on webgpu, tfjs's own elsewhere), as the trainer uses it
  const optimizer = createAdam({ learningRate: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 });
  const rng = new SeededRandom(o.seed + 1);
  const T = BENCH_MODEL.contextTokens;
  const idx = new Int32Array(BENCH_BATCH * T).map(() => rng.nextUint32() % BENCH_MODEL.vocabSize);
  const w = new Float32Array(BENCH_BATCH * (T - 1)).map(() => rng.next());
  const all = tf.tensor2d(idx, [BENCH_BATCH, T], 'int32');
  const inputs = tf.slice(all, [0, 0], [BENCH_BATCH, T - 1]);
  const targets = tf.slice(all, [0, 1], [BENCH_BATCH, T - 1]);
  const weights = tf.tensor2d(w, [BENCH_BATCH, T - 1]);
  const weightSum = tf.sum(weights);
  const vars = model.trainableVariables;
  const step = async (): Promise<number> => {
    const loss = optimizer.minimize(
      () => {
        const lp = tokenLogProbs(model.forward(inputs), targets); // [B, T−1]
        return tf.div(tf.neg(tf.sum(tf.mul(lp, weights))), weightSum) as tf.Scalar;
      },
      true,
      vars,
    ) as tf.Scalar;
    const v = (await loss.data())[0] as number; // also the device sync point
    loss.dispose();
    return v;
  };
  try {
    const r = await timeSteps('W1', step, o);
    return {
      ...r.stats,
      kernelsPerStep: r.kernels.total,
      gpuProgramsPerStep: r.kernels.gpuPrograms,
      readbacksPerStep: r.kernels.readbacks,
      topKernels: topKernels(r.kernels),
      numTensors: tf.memory().numTensors,
      tensorsLeakedPerStep: r.tensorsLeakedPerStep,
      lossAfter: r.last,
      parameters: parameterCount(BENCH_MODEL),
    };
  } finally {
    tf.dispose([all, inputs, targets, weights, weightSum]);
    optimizer.dispose();
    model.dispose();
  }
}

/** W2: rollouts with and without the KV cache (whichever of w2cached / w2uncached is selected). */
async function benchRollout(o: BenchOptions): Promise<Record<string, unknown>> {
  const model = new PolicyModel(BENCH_MODEL, o.seed, 'bench_w2');
  const rng = new SeededRandom(o.seed + 2);
  const prompts = new Int32Array(BENCH_BATCH * BENCH_PROMPT).map(() => rng.nextUint32() % BENCH_MODEL.vocabSize);
  const run = (useCache: boolean) =>
    generate(model, prompts, BENCH_BATCH, BENCH_PROMPT, {
      newTokens: BENCH_NEW_TOKENS,
      temperature: 1,
      topP: 1,
      seed: o.seed,
      useCache,
    });
  try {
    const out: Record<string, unknown> = {};
    // per decoded token: the rollout's total over its BENCH_NEW_TOKENS decode steps (the prefill included)
    const perToken = (n: number): number => Math.round((n / BENCH_NEW_TOKENS) * 10) / 10;
    const modes = [true, false].filter((c) => o.workloads.includes(c ? 'w2cached' : 'w2uncached'));
    for (const useCache of modes) {
      const mode = useCache ? 'cached' : 'uncached';
      await run(useCache); // warm-up
      const tensorsBefore = tf.memory().numTensors;
      const { kernels } = await countKernels(() => run(useCache));
      const times: number[] = [];
      for (let k = 0; k < o.rollouts; k++) {
        const t0 = performance.now();
        await run(useCache);
        times.push(performance.now() - t0);
        o.progress?.(`W2 ${mode} ${k + 1}/${o.rollouts}: ${(times[k] as number).toFixed(0)} ms`);
      }
      out[mode] = {
        ...timingStats(times),
        kernelsPerRollout: kernels.total,
        gpuProgramsPerRollout: kernels.gpuPrograms,
        kernelsPerToken: perToken(kernels.total),
        gpuProgramsPerToken: kernels.gpuPrograms === null ? null : perToken(kernels.gpuPrograms),
        readbacksPerRollout: kernels.readbacks,
        topKernels: topKernels(kernels, 6),
        tensorsLeaked: tf.memory().numTensors - tensorsBefore,
      };
    }
    const c = out.cached as { medianMs: number } | undefined;
    const u = out.uncached as { medianMs: number } | undefined;
    if (c !== undefined && u !== undefined) out.cacheSpeedup = Math.round((u.medianMs / c.medianMs) * 10) / 10;
    return out;
  } finally {
    model.dispose();
  }
}

/** The loss path at W1's shape: GRPO + full-KL OPD loss and their gradient w.r.t. the logits. */
async function benchLossPath(o: BenchOptions): Promise<Record<string, unknown>> {
  const rng = new SeededRandom(o.seed + 3);
  const [B, T, V] = [BENCH_BATCH, BENCH_MODEL.contextTokens - 1, BENCH_MODEL.vocabSize];
  const normal = (n: number, scale: number) => new Float32Array(n).map(() => scale * (rng.next() * 2 - 1));
  const classes = [TokenClass.actionHead, TokenClass.actionArg, TokenClass.observation, TokenClass.prompt];
  const logits = tf.tensor3d(normal(B * T * V, 4), [B, T, V]);
  const teacherLogits = tf.tensor3d(normal(B * T * V, 4), [B, T, V]);
  const targets = tf.tensor2d(
    new Int32Array(B * T).map(() => rng.nextUint32() % V),
    [B, T],
    'int32',
  );
  const targetClasses = tf.tensor2d(
    new Int32Array(B * T).map(() => classes[rng.nextUint32() % classes.length] as number),
    [B, T],
    'int32',
  );
  const oldLogProbs = tf.tensor2d(
    normal(B * T, 1).map((x) => x - 4),
    [B, T],
  );
  const refLogProbs = tf.tensor2d(
    normal(B * T, 1).map((x) => x - 4),
    [B, T],
  );
  const teacherLogProbs = tf.tensor2d(
    normal(B * T, 1).map((x) => x - 4),
    [B, T],
  );
  const advantages = normal(B, 1);
  const lossAndGrad = tf.valueAndGrad((z: tf.Tensor) => {
    const g = grpoLoss({ logits: z, targets, targetClasses, oldLogProbs, advantages, refLogProbs }, { klCoef: 0.01 });
    const d = opdLoss({ logits: z, targets, targetClasses, oldLogProbs, teacherLogProbs, teacherLogits }, 'full');
    return tf.add(g.loss, d.loss) as tf.Scalar; // the statistics are freed by valueAndGrad's forward tidy
  });
  const step = async (): Promise<number> => {
    const { value, grad } = lossAndGrad(logits);
    const both = tf.tidy(() => tf.concat([tf.reshape(value, [1]), tf.reshape(tf.sum(tf.abs(grad)), [1])]));
    const v = (await both.data())[0] as number; // one readback per step: the device sync point
    tf.dispose([value, grad, both]);
    return v;
  };
  try {
    const r = await timeSteps('loss', step, o);
    return {
      ...r.stats,
      shape: [B, T, V],
      kernelsPerStep: r.kernels.total,
      gpuProgramsPerStep: r.kernels.gpuPrograms,
      readbacksPerStep: r.kernels.readbacks,
      topKernels: topKernels(r.kernels),
      tensorsLeakedPerStep: r.tensorsLeakedPerStep,
      lossValue: r.last,
    };
  } finally {
    tf.dispose([logits, teacherLogits, targets, targetClasses, oldLogProbs, refLogProbs, teacherLogProbs]);
  }
}

/** Runs the selected workloads on the active backend; unselected ones are reported as 'skipped'. */
export async function runWorkloads(o: BenchOptions): Promise<Record<string, unknown>> {
  const w1 = o.workloads.includes('w1') ? await benchTrainStep(o) : 'skipped';
  const w2 = o.workloads.some((w) => w === 'w2cached' || w === 'w2uncached') ? await benchRollout(o) : 'skipped';
  const loss = o.workloads.includes('loss') ? await benchLossPath(o) : 'skipped';
  return {
    workload: { batch: BENCH_BATCH, model: BENCH_MODEL, prompt: BENCH_PROMPT, newTokens: BENCH_NEW_TOKENS },
    w1_train_step: w1,
    w2_rollout: w2,
    loss_path: loss,
  };
}
