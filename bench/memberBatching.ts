// What batching the members of a population into one kernel pass could save on a backend, at best. K members batched
// run the same kernels as one run with K times the rows, so this times a training step and a cached rollout of
// `retire-shell`'s policy at batch B, 2B, 3B … (B = the preset's GRPO rollouts per step) and prints each as a share of K separate
// steps. Near 1: the time is arithmetic that grows with the rows, and a member axis would save nothing. Near 1/K: the
// time is per-kernel overhead, which a member axis would pay once. Members with their own weights need batched
// products instead of these shared-weight ones: the last columns time that, the member axis itself
// (src/engine/memberModel.ts, memberAdam.ts): one step of K members, each its own weights and B rows, with each
// member's own gradient clip and finiteness guard, beside K single steps (each with the same clip, by checkedUpdate's
// host rule), and the GPU programs each dispatches (on webgpu; elsewhere its kernels); then the member axis's decode
// (turnDecoder.ts with a MemberModel): K members' cached rollouts as one, beside K single ones, with the programs and
// the blocking readbacks of each. Both sample where the lab does: on the device on webgpu (the member decode with one
// stream per member, one read per turn), on the host elsewhere (one read of the logits per decode step).
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
import { countKernels, type KernelCounts } from '../src/engine/kernelCounter';
import { MemberAdam } from '../src/engine/memberAdam';
import { MemberModel } from '../src/engine/memberModel';
import { createAdam } from '../src/engine/optimizer';
import { NO_STOP, TurnDecoder } from '../src/engine/turnDecoder';
import { gradClipCoefficient } from '../src/engine/trainer/checkedUpdate';
import { readShippedPreset } from './shippedPreset';

const TOKENS = 28;
const ADAM = { learningRate: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };
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
  const optimizer = createAdam(ADAM);
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

/** token cross-entropy of rows [n, TOKENS] under a forward pass of their first TOKENS − 1 tokens: [n] */
function rowLoss(logits: tf.Tensor, rows: tf.Tensor2D): tf.Tensor1D {
  const n = rows.shape[0];
  return tf.neg(tf.mean(tokenLogProbs(logits, tf.slice(rows, [0, 1], [n, TOKENS - 1])), 1)) as tf.Tensor1D;
}

/** GPU programs dispatched on webgpu; elsewhere every kernel (a reshape included, which costs nothing there) */
function programs(k: KernelCounts): number {
  return k.gpuPrograms ?? k.total;
}

/** a step's median time (ms) and its GPU programs (or kernels), counted on one more call */
async function timedAndCounted(step: () => Promise<void>): Promise<[number, number]> {
  const count = programs((await countKernels(step)).kernels);
  return [await medianMs(step, steps), count];
}

/**
 * One clipped step of `k` members (own weights, `rows` rows each) on the member axis, and its kernel count; with
 * `k` = 1 and `single`, one PolicyModel's clipped step instead (the reference the member axis is divided by).
 */
async function memberStep(config: ModelConfig, k: number, rows: number, single: boolean): Promise<[number, number]> {
  const models = Array.from({ length: k }, (_, i) => new PolicyModel(config, 1 + i, `member_axis_${k}_${i}`));
  const tokens = tf.randomUniform([k, rows, TOKENS], 0, config.vocabSize, 'int32', 4) as tf.Tensor3D;
  const clip = 1;
  if (single) {
    const model = models[0]!;
    const optimizer = createAdam(ADAM);
    const own = tf.reshape(tokens, [rows, TOKENS]) as tf.Tensor2D;
    const inputs = tf.slice(own, [0, 0], [rows, TOKENS - 1]) as tf.Tensor2D;
    // checkedUpdate's host rule: one read of loss and ‖∇‖², the clip coefficient on the host, then Adam
    const step = async () => {
      const { value, grads } = tf.variableGrads(
        () => tf.mean(rowLoss(model.forward(inputs), own)) as tf.Scalar,
        model.trainableVariables,
      );
      const read = tf.tidy(() => tf.stack([value, tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g))))]));
      const [, normSq] = Array.from(await read.data());
      read.dispose();
      const coef = gradClipCoefficient(Math.sqrt(normSq!), clip);
      const scaled = tf.tidy(() => Object.fromEntries(Object.entries(grads).map(([n, g]) => [n, tf.mul(g, coef)])));
      optimizer.applyGradients(scaled as unknown as Record<string, tf.Variable>); // tfjs types the map as variables; it reads tensors
      tf.dispose([value, ...Object.values(grads), ...Object.values(scaled)]);
    };
    try {
      return await timedAndCounted(step);
    } finally {
      tf.dispose([tokens, own, inputs]);
      optimizer.dispose();
      model.dispose();
    }
  }
  const members = MemberModel.fromModels(models);
  models.forEach((m) => m.dispose());
  const adam = new MemberAdam(members.trainableVariables, ADAM);
  const inputs = tf.slice(tokens, [0, 0, 0], [k, rows, TOKENS - 1]);
  const flat = tf.reshape(tokens, [k * rows, TOKENS]) as tf.Tensor2D;
  const step = async () => {
    const { stats } = adam.step(() => {
      const logits = tf.reshape(members.forward(inputs), [k * rows, TOKENS - 1, config.vocabSize]);
      return tf.mean(tf.reshape(rowLoss(logits, flat), [k, rows]), 1) as tf.Tensor1D;
    }, clip);
    await stats.data();
    stats.dispose();
  };
  try {
    return await timedAndCounted(step);
  } finally {
    tf.dispose([tokens, inputs, flat]);
    adam.dispose();
    members.dispose();
  }
}

/**
 * A cached rollout of `rows` sequences for each of `k` members with their own weights, as one member-axis decode
 * (or, `single`, one PolicyModel's): median ms, and the GPU programs (or kernels) and blocking readbacks of one.
 */
async function memberDecode(config: ModelConfig, k: number, rows: number, single: boolean): Promise<number[]> {
  const models = Array.from({ length: k }, (_, i) => new PolicyModel(config, 1 + i, `member_decode_${k}_${i}`));
  const members = single ? null : MemberModel.fromModels(models);
  const R = k * rows;
  const decode = async () => {
    const options = { temperature: 1, topP: 1, seed: 3, memberSeeds: models.map((_, i) => 3 + i) };
    const decoder = new TurnDecoder(members ?? models[0]!, R, PROMPT + NEW_TOKENS, options);
    try {
      for (let i = 0; i < R; i++)
        decoder.push(
          i,
          Array.from({ length: PROMPT }, (_, j) => (i * 7 + j) % config.vocabSize),
        );
      await decoder.decodeTurn(new Uint8Array(R).fill(1), NEW_TOKENS, NO_STOP, []);
    } finally {
      decoder.dispose();
    }
  };
  try {
    const counted = (await countKernels(decode)).kernels;
    return [await medianMs(decode, steps), programs(counted), counted.readbacks];
  } finally {
    members?.dispose();
    models.forEach((m) => m.dispose());
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
  const [memberAxis, memberKernels] = await memberStep(model, k, batch, false);
  const [single, singleKernels] = await memberStep(model, 1, batch, true);
  const [memberDecodeMs, decodeKernels, decodeReads] = await memberDecode(model, k, batch, false);
  const [singleDecodeMs, singleDecodeKernels, singleDecodeReads] = await memberDecode(model, 1, batch, true);
  console.log(
    JSON.stringify({
      ...{ backend, train, rollout, memberAxis, memberKernels, single, singleKernels },
      ...{ memberDecodeMs, decodeKernels, decodeReads, singleDecodeMs, singleDecodeKernels, singleDecodeReads },
    }),
  );
} else {
  // every population size in fresh processes, in turn, `repeats` times: a process's speed depends on where its wasm
  // heap landed and on what it allocated before (the same step varies by up to a third between processes here)
  type Line = Record<
    | 'train'
    | 'rollout'
    | 'memberAxis'
    | 'memberKernels'
    | 'single'
    | 'singleKernels'
    | 'memberDecodeMs'
    | 'decodeKernels'
    | 'decodeReads'
    | 'singleDecodeMs'
    | 'singleDecodeKernels'
    | 'singleDecodeReads',
    number
  >;
  const runs = new Map<number, Line[]>(members.map((k) => [k, []]));
  let backend = '';
  for (let r = 0; r < repeats; r++)
    for (const k of members) {
      // the same loader flags as this process (tsx's, or none for a bundled copy)
      const argv = [...process.execArgv, fileURLToPath(import.meta.url), '--child', String(k)];
      const out = execFileSync(process.execPath, [...argv, '--backend', values.backend, '--steps', String(steps)], {
        encoding: 'utf8',
      });
      const line = JSON.parse(out.trim().split('\n').at(-1)!) as Line & { backend: string };
      backend = line.backend;
      runs.get(k)!.push(line);
    }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ms = (k: number, key: keyof Line) => median(runs.get(k)!.map((x) => x[key]));
  const k0 = members[0]!;
  console.log(
    `backend ${backend}, tfjs ${tf.version.tfjs}; retire-shell's policy, B = ${batch} rollouts; ` +
      `median over ${repeats} processes of each one's median of ${steps} steps`,
  );
  const unit = backend === 'webgpu' ? 'GPU programs' : 'kernels';
  console.log(
    '| members K | train step ms | ÷ K single steps | rollout ms | ÷ K single rollouts | member-axis step ms | ' +
      `÷ K single clipped steps | ${unit}: member axis / K single | member-axis rollout ms | ÷ K single rollouts ` +
      `| ${unit}: member rollout / K single | readbacks: member rollout / K single |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const k of members) {
    const share = (key: 'train' | 'rollout') => ((ms(k, key) / ms(k0, key)) * (k0 / k)).toFixed(2);
    console.log(
      `| ${k} | ${ms(k, 'train').toFixed(1)} | ${share('train')} | ${ms(k, 'rollout').toFixed(1)} | ${share('rollout')} ` +
        `| ${ms(k, 'memberAxis').toFixed(1)} | ${(ms(k, 'memberAxis') / (k * ms(k, 'single'))).toFixed(2)} ` +
        `| ${ms(k, 'memberKernels')} / ${k * ms(k, 'singleKernels')} ` +
        `| ${ms(k, 'memberDecodeMs').toFixed(1)} | ${(ms(k, 'memberDecodeMs') / (k * ms(k, 'singleDecodeMs'))).toFixed(2)} ` +
        `| ${ms(k, 'decodeKernels')} / ${k * ms(k, 'singleDecodeKernels')} ` +
        `| ${ms(k, 'decodeReads')} / ${k * ms(k, 'singleDecodeReads')} |`,
    );
  }
}
