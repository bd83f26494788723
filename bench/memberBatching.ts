// What batching the members of a population into one kernel pass could save on a backend, at best. K members batched
// run the same kernels as one run with K times the rows, so this times a training step and a cached rollout of
// `retire-shell`'s policy at batch B, 2B, 3B … (B = the preset's GRPO rollouts per step) and prints each as a share of K separate
// steps. Near 1: the time is arithmetic that grows with the rows, and a member axis would save nothing. Near 1/K: the
// time is per-kernel overhead, which a member axis would pay once. Members with their own weights would need batched
// products instead of these shared-weight ones, so real savings are at most these.
// A measurement to report, not a test:
//   npx tsx bench/memberBatching.ts [--backend wasm|cpu|webgpu] [--members 1,2,3] [--steps N] [--repeats N]
// Each population size is timed in fresh processes, one after another, and the table gives medians over them.
// The shapes: a training step on [K·B, T] tokens (T = 28, about a shell episode) with Adam; a rollout of K·B
// sequences, a 12-token prompt and 16 sampled tokens with the KV cache.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { createEnvFor } from '../src/core/experiment/envFactory';
import { validateConfig } from '../src/core/experiment/config';
import { initBackend, parseBackendName } from '../src/engine/backend';
import { generate } from '../src/engine/generate';
import { tokenLogProbs } from '../src/engine/losses/tokenLogProbs';
import { PolicyModel } from '../src/engine/model';
import { modelConfigFor, type ModelConfig } from '../src/engine/modelConfig';
import { createAdam } from '../src/engine/optimizer';
import { readShippedPreset } from './shippedPreset';

const TOKENS = 28;
const PROMPT = 12;
const NEW_TOKENS = 16;

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'wasm' },
    members: { type: 'string', default: '1,2,3' },
    steps: { type: 'string', default: '15' },
    repeats: { type: 'string', default: '3' },
    child: { type: 'string' },
  },
});
const members = values.members.split(',').map(Number);
const steps = Number(values.steps);
const repeats = Number(values.repeats);
if (
  members.some((k) => !Number.isSafeInteger(k) || k < 1) ||
  [steps, repeats].some((n) => !Number.isSafeInteger(n) || n < 1)
)
  throw new Error('--members: integers ≥ 1, comma-separated; --steps, --repeats: integers ≥ 1');

/** The median of `n` timed calls of `f` (ms), after two untimed ones. */
async function medianMs(f: () => Promise<void>, n: number): Promise<number> {
  for (let i = 0; i < 2; i++) await f();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

/** One Adam step on a token cross-entropy over [rows, TOKENS − 1] positions. */
async function trainStepMs(config: ModelConfig, rows: number): Promise<number> {
  const model = new PolicyModel(config, 1, `member_batching_train_${rows}`);
  const optimizer = createAdam({ learningRate: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 });
  const all = tf.randomUniform([rows, TOKENS], 0, config.vocabSize, 'int32', 2) as tf.Tensor2D; // [rows, T]
  const inputs = tf.slice(all, [0, 0], [rows, TOKENS - 1]);
  const targets = tf.slice(all, [0, 1], [rows, TOKENS - 1]);
  try {
    return await medianMs(async () => {
      const loss = optimizer.minimize(
        () => tf.neg(tf.mean(tokenLogProbs(model.forward(inputs), targets))) as tf.Scalar,
        true,
        model.trainableVariables,
      )!;
      await loss.data();
      loss.dispose();
    }, steps);
  } finally {
    tf.dispose([all, inputs, targets]);
    optimizer.dispose();
    model.dispose();
  }
}

/** A cached rollout of `rows` sequences. */
async function rolloutMs(config: ModelConfig, rows: number): Promise<number> {
  const model = new PolicyModel(config, 1, `member_batching_rollout_${rows}`);
  const prompts = new Int32Array(rows * PROMPT).map((_, i) => (i * 7) % config.vocabSize);
  const options = { newTokens: NEW_TOKENS, temperature: 1, topP: 1, topK: 0, useCache: true, seed: 3 };
  try {
    return await medianMs(async () => void (await generate(model, prompts, rows, PROMPT, options)), steps);
  } finally {
    model.dispose();
  }
}

const preset = readShippedPreset('retire-shell');
const config = validateConfig(preset.config, 'retire-shell');
const model = modelConfigFor(config, createEnvFor(config));
const batch = config.student.grpo.groupSize * config.student.grpo.tasksPerStep;

if (values.child !== undefined) {
  // one population size in this process: its timings as one JSON line
  const k = Number(values.child);
  const backend = await initBackend(parseBackendName(values.backend));
  const train = await trainStepMs(model, k * batch);
  const rollout = await rolloutMs(model, k * batch);
  console.log(JSON.stringify({ backend, train, rollout }));
} else {
  // every population size in fresh processes, in turn, `repeats` times: a process's speed depends on where its wasm
  // heap landed and on what it allocated before (the same step varies by up to a third between processes here)
  const runs = new Map<number, { train: number; rollout: number }[]>(members.map((k) => [k, []]));
  let backend = '';
  for (let r = 0; r < repeats; r++)
    for (const k of members) {
      // the same loader flags as this process (tsx's, or none for a bundled copy)
      const argv = [...process.execArgv, fileURLToPath(import.meta.url), '--child', String(k)];
      const out = execFileSync(process.execPath, [...argv, '--backend', values.backend, '--steps', String(steps)], {
        encoding: 'utf8',
      });
      const line = JSON.parse(out.trim().split('\n').at(-1)!) as { backend: string; train: number; rollout: number };
      backend = line.backend;
      runs.get(k)!.push(line);
    }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ms = (k: number, key: 'train' | 'rollout') => median(runs.get(k)!.map((x) => x[key]));
  const k0 = members[0]!;
  console.log(
    `backend ${backend}, tfjs ${tf.version.tfjs}; retire-shell's policy, B = ${batch} rollouts; ` +
      `median over ${repeats} processes of each one's median of ${steps} steps`,
  );
  console.log('| members K | train step ms | ÷ K single steps | rollout ms | ÷ K single rollouts |');
  console.log('|---|---|---|---|---|');
  for (const k of members) {
    const share = (key: 'train' | 'rollout') => ((ms(k, key) / ms(k0, key)) * (k0 / k)).toFixed(2);
    console.log(
      `| ${k} | ${ms(k, 'train').toFixed(1)} | ${share('train')} | ${ms(k, 'rollout').toFixed(1)} | ${share('rollout')} |`,
    );
  }
}
