// `npm run bench -- [--backends cpu,wasm,webgpu] [--steps N] [--rollouts N] [--warmup N] [--workloads w1,w2cached,w2uncached] [--seed N]`
// (webgpu in Node runs on SwiftShader, a CPU emulation: use e.g. --steps 2 --rollouts 1 --warmup 1 there)
// Prints one JSON object per available backend for the reference workloads (../shared/anchors):
//   W1: one training step (vocab 64, context 128, width 64, 2 layers, 4 heads, MLP 256, batch 64, masked weighted
//       token CE, Adam with an explicit epsilon);
//   W2: a rollout of 64 sequences, 64-token prompt, 32 sampled tokens, with and without the KV cache.
// Timings are wall-clock ms (median/min/max after warm-up); kernels are engine kernel invocations per step.
import * as tf from '@tensorflow/tfjs';
import { BackendUnavailableError, initBackend, parseBackendName, type BackendName } from '../src/engine/backend';
import { generate } from '../src/engine/generate';
import { countKernels, type KernelCounts } from '../src/engine/kernelCounter';
import { tokenLogProbs } from '../src/engine/losses/tokenLogProbs';
import { PolicyModel } from '../src/engine/model';
import { parameterCount, type ModelConfig } from '../src/engine/modelConfig';
import { SeededRandom } from '../src/engine/sampling';

const REFERENCE: ModelConfig = {
  vocabSize: 64,
  contextTokens: 128,
  width: 64,
  layers: 2,
  heads: 4,
  mlp: 256,
  tiedHead: false,
};
const BATCH = 64;
const PROMPT = 64;
const NEW_TOKENS = 32;
const PYTORCH_MS = { w1: 330, w2NoCache: 3700 };

interface Args {
  backends: BackendName[];
  steps: number;
  rollouts: number;
  seed: number;
  warmup: number;
  workloads: Workload[];
}

type Workload = 'w1' | 'w2cached' | 'w2uncached';
const WORKLOADS: readonly Workload[] = ['w1', 'w2cached', 'w2uncached'];

function parseArgs(argv: string[]): Args {
  const args: Args = {
    backends: ['cpu', 'wasm', 'webgpu'],
    steps: 10,
    rollouts: 3,
    seed: 0,
    warmup: 3,
    workloads: [...WORKLOADS],
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    const value = argv[i + 1];
    const int = (): number => {
      const n = Number(value);
      if (value === undefined || !Number.isInteger(n) || n <= 0)
        throw new Error(`${flag} expects a positive integer, got ${value ?? 'nothing'}`);
      i++;
      return n;
    };
    if (flag === '--backends') {
      if (value === undefined) throw new Error('--backends expects a comma-separated list, e.g. cpu,wasm,webgpu');
      args.backends = value.split(',').filter(Boolean).map(parseBackendName);
      i++;
    } else if (flag === '--steps') args.steps = int();
    else if (flag === '--rollouts') args.rollouts = int();
    else if (flag === '--seed') args.seed = int();
    else if (flag === '--warmup') args.warmup = int();
    else if (flag === '--workloads') {
      if (value === undefined) throw new Error(`--workloads expects a comma-separated list of ${WORKLOADS.join(', ')}`);
      args.workloads = value.split(',').map((w) => {
        if (!(WORKLOADS as readonly string[]).includes(w)) {
          throw new Error(`unknown workload '${w}' (expected ${WORKLOADS.join(', ')})`);
        }
        return w as Workload;
      });
      i++;
    } else if (flag === '--help' || flag === '-h') {
      console.log(
        'usage: npm run bench -- [--backends cpu,wasm,webgpu] [--steps N] [--rollouts N] [--warmup N] [--workloads w1,w2cached,w2uncached] [--seed N]',
      );
      process.exit(0);
    } else
      throw new Error(
        `unknown option '${flag}' (expected --backends, --steps, --rollouts, --warmup, --workloads, --seed)`,
      );
  }
  return args;
}

/** progress on stderr, so stdout stays pure JSON */
function progress(msg: string): void {
  process.stderr.write(`[bench ${tf.getBackend()}] ${msg}\n`);
}

function stats(ms: number[]): { medianMs: number; minMs: number; maxMs: number; n: number } {
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

async function benchTrainStep(args: Args): Promise<Record<string, unknown>> {
  const model = new PolicyModel(REFERENCE, args.seed, 'bench_w1');
  const optimizer = tf.train.adam(1e-3, 0.9, 0.999, 1e-8);
  const rng = new SeededRandom(args.seed + 1);
  const T = REFERENCE.contextTokens;
  const idx = new Int32Array(BATCH * T).map(() => rng.nextUint32() % REFERENCE.vocabSize);
  const w = new Float32Array(BATCH * (T - 1)).map(() => rng.next());
  const all = tf.tensor2d(idx, [BATCH, T], 'int32');
  const inputs = tf.slice(all, [0, 0], [BATCH, T - 1]);
  const targets = tf.slice(all, [0, 1], [BATCH, T - 1]);
  const weights = tf.tensor2d(w, [BATCH, T - 1]);
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
    for (let k = 0; k < args.warmup; k++) await step();
    const tensorsBefore = tf.memory().numTensors;
    const { result: loss, kernels } = await countKernels(step);
    const times: number[] = [];
    let last = loss;
    for (let k = 0; k < args.steps; k++) {
      const t0 = performance.now();
      last = await step();
      times.push(performance.now() - t0);
      progress(`W1 step ${k + 1}/${args.steps}: ${(times[times.length - 1] as number).toFixed(0)} ms`);
    }
    const s = stats(times);
    return {
      ...s,
      vsPytorch: Math.round((s.medianMs / PYTORCH_MS.w1) * 100) / 100,
      kernelsPerStep: kernels.total,
      topKernels: topKernels(kernels),
      numTensors: tf.memory().numTensors,
      tensorsLeakedPerStep: (tf.memory().numTensors - tensorsBefore) / (args.steps + 1),
      lossAfter: last,
      parameters: parameterCount(REFERENCE),
    };
  } finally {
    tf.dispose([all, inputs, targets, weights, weightSum]);
    optimizer.dispose();
    model.dispose();
  }
}

async function benchRollout(args: Args): Promise<Record<string, unknown>> {
  const model = new PolicyModel(REFERENCE, args.seed, 'bench_w2');
  const rng = new SeededRandom(args.seed + 2);
  const prompts = new Int32Array(BATCH * PROMPT).map(() => rng.nextUint32() % REFERENCE.vocabSize);
  const run = (useCache: boolean) =>
    generate(model, prompts, BATCH, PROMPT, {
      newTokens: NEW_TOKENS,
      temperature: 1,
      topP: 1,
      seed: args.seed,
      useCache,
    });
  try {
    const out: Record<string, unknown> = {};
    const modes = [true, false].filter((c) => args.workloads.includes(c ? 'w2cached' : 'w2uncached'));
    for (const useCache of modes) {
      await run(useCache); // warm-up
      const tensorsBefore = tf.memory().numTensors;
      const { kernels } = await countKernels(() => run(useCache));
      const times: number[] = [];
      const reps = args.rollouts;
      for (let k = 0; k < reps; k++) {
        const t0 = performance.now();
        await run(useCache);
        times.push(performance.now() - t0);
        progress(
          `W2 ${useCache ? 'cached' : 'uncached'} ${k + 1}/${reps}: ${(times[times.length - 1] as number).toFixed(0)} ms`,
        );
      }
      out[useCache ? 'cached' : 'uncached'] = {
        ...stats(times),
        kernelsPerRollout: kernels.total,
        topKernels: topKernels(kernels, 6),
        tensorsLeaked: tf.memory().numTensors - tensorsBefore,
      };
    }
    const c = out.cached as { medianMs: number } | undefined;
    const u = out.uncached as { medianMs: number } | undefined;
    if (c !== undefined && u !== undefined) out.cacheSpeedup = Math.round((u.medianMs / c.medianMs) * 10) / 10;
    if (u !== undefined) out.uncachedVsPytorch = Math.round((u.medianMs / PYTORCH_MS.w2NoCache) * 100) / 100;
    return out;
  } finally {
    model.dispose();
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  for (const backend of args.backends) {
    try {
      await initBackend(backend);
    } catch (e) {
      if (!(e instanceof BackendUnavailableError)) throw e;
      console.log(JSON.stringify({ backend, available: false, reason: e.message }));
      continue;
    }
    const w1 = args.workloads.includes('w1') ? await benchTrainStep(args) : 'skipped';
    const w2 = args.workloads.some((w) => w !== 'w1') ? await benchRollout(args) : 'skipped';
    console.log(
      JSON.stringify(
        {
          backend,
          available: true,
          workload: { batch: BATCH, model: REFERENCE, prompt: PROMPT, newTokens: NEW_TOKENS },
          w1_train_step: w1,
          w2_rollout: w2,
          pytorchReferenceMs: PYTORCH_MS,
        },
        null,
        2,
      ),
    );
  }
}

main().catch((e: unknown) => {
  console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
