// TurnDecoder with a MemberModel: K members decoded in one pass against each member's own decoder (a PolicyModel,
// its own KVCache, seeded with memberSeeds[k]). Sampling is on the host in float64 from logits that agree to
// float32 rounding (1e-5), so the sampled tokens are the same (a uniform within 1e-5 of a CDF boundary would be the
// only way to differ; with these fixed seeds none is) and log-probs and entropies agree to 1e-5.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { readbackCount } from '../../src/engine/kernelCounter';
import { MemberModel } from '../../src/engine/memberModel';
import { PolicyModel } from '../../src/engine/model';
import { makeModelConfig } from '../../src/engine/modelConfig';
import { TurnDecoder } from '../../src/engine/turnDecoder';
import { BackendOrSkip } from './helpers/webgpuOrSkip';

const config = makeModelConfig('tiny', { vocabSize: 23, contextTokens: 40, width: 24, heads: 3, layers: 2, mlp: 40 });
const K = 3;
/** rows per member */
const ROWS = 2;
const CAP = 40;
const STOP = 5;
const SEEDS = [11, 902, 77];

/** row r's prompt, its reply to turn 1 and its second prompt: rows of different lengths, every member different */
const prompt = (r: number) => Array.from({ length: 3 + ((r * 5) % 7) }, (_, j) => (r * 3 + j * 7 + 1) % 23);
const observation = (r: number) => Array.from({ length: 1 + (r % 3) }, (_, j) => (r + j * 11 + 2) % 23);

interface Turns {
  actions: number[][][];
  tokens: Int32Array;
  logProbs: Float32Array;
  entropy: Float32Array;
  lengths: Int32Array;
}

/** two turns of `rows` rows (global row numbers from `first`): prompts, a turn, observations, a turn */
async function twoTurns(decoder: TurnDecoder, first: number, rows: number): Promise<Turns> {
  for (let i = 0; i < rows; i++) decoder.push(i, prompt(first + i));
  const actions: number[][][] = [];
  const acting = new Uint8Array(rows).fill(1);
  const turn1: number[][] = [];
  await decoder.decodeTurn(acting, 6, STOP, turn1);
  actions.push(turn1);
  for (let i = 0; i < rows; i++) decoder.push(i, observation(first + i));
  // every member's second row has ended its episode: it sits the second turn out
  for (let i = 0; i < rows; i++) acting[i] = (first + i) % ROWS === ROWS - 1 ? 0 : 1;
  const turn2: number[][] = [];
  await decoder.decodeTurn(acting, 6, STOP, turn2);
  actions.push(turn2);
  const { tokens, logProbs, entropy, lengths } = decoder;
  return { actions, tokens, logProbs, entropy, lengths };
}

// webgpu: both sides sample on the host, then both on the device (deviceSampling.ts, one stream per member: one read
// per turn); skipped, with the reason printed, where no WebGPU adapter exists
describe.each(['cpu', 'wasm', 'webgpu'] as const)('TurnDecoder with a MemberModel on %s', (backend) => {
  const gpu = new BackendOrSkip();
  beforeAll(() => gpu.init(backend), 120_000);

  const sides = backend === 'webgpu' ? (['host', 'device'] as const) : (['host'] as const);
  it.for(sides)(
    "samples, for each member's rows, what the member's own decoder samples with its own seed (%s sampling)",
    async (side, ctx) => {
      gpu.skipIfMissing(ctx);
      const models = Array.from({ length: K }, (_, k) => new PolicyModel(config, 40 + k, `d${k}`));
      const members = MemberModel.fromModels(models);
      const before = tf.memory().numTensors;
      const sampling = { temperature: 1, topP: 1, deviceSampling: side === 'device' };
      const together = new TurnDecoder(members, K * ROWS, CAP, { seed: 0, memberSeeds: SEEDS, ...sampling });
      try {
        const reads = readbackCount();
        const all = await twoTurns(together, 0, K * ROWS);
        // host: one read of the [K·b, V] logits per decode step; device: one read per turn
        expect(readbackCount() - reads).toBe(side === 'device' ? 2 : together.decodeSteps);
        expect(together.decodeSteps).toBeGreaterThan(2);
        for (let k = 0; k < K; k++) {
          const alone = new TurnDecoder(models[k]!, ROWS, CAP, { seed: SEEDS[k]!, ...sampling });
          const own = await twoTurns(alone, k * ROWS, ROWS);
          alone.dispose();
          for (let t = 0; t < 2; t++)
            expect(all.actions[t]!.slice(k * ROWS, (k + 1) * ROWS), `member ${k} turn ${t + 1}`).toEqual(
              own.actions[t],
            );
          const span = [k * ROWS * CAP, (k + 1) * ROWS * CAP] as const;
          expect(Array.from(all.tokens.subarray(...span))).toEqual(Array.from(own.tokens));
          expect(Array.from(all.lengths.subarray(k * ROWS, (k + 1) * ROWS))).toEqual(Array.from(own.lengths));
          const lp = all.logProbs.subarray(...span);
          const ent = all.entropy.subarray(...span);
          for (let i = 0; i < own.logProbs.length; i++) {
            expect(Math.abs((lp[i] as number) - (own.logProbs[i] as number))).toBeLessThan(1e-5);
            expect(Math.abs((ent[i] as number) - (own.entropy[i] as number))).toBeLessThan(1e-5);
          }
        }
        // the members' streams differ: not every member sampled member 0's first action
        const firsts = Array.from({ length: K }, (_, k) => JSON.stringify(all.actions[0]![k * ROWS]));
        expect(new Set(firsts).size).toBeGreaterThan(1);
      } finally {
        together.dispose();
      }
      expect(tf.memory().numTensors).toBe(before);
      members.dispose();
      models.forEach((m) => m.dispose());
    },
  );

  it('refuses members without one seed each, rows that do not split evenly, and the uncached path', (ctx) => {
    gpu.skipIfMissing(ctx);
    const models = [new PolicyModel(config, 1, 'a'), new PolicyModel(config, 2, 'b')];
    const members = MemberModel.fromModels(models);
    try {
      expect(() => new TurnDecoder(members, 4, CAP, { seed: 0, temperature: 1, topP: 1 })).toThrow(/memberSeeds/);
      expect(() => new TurnDecoder(members, 4, CAP, { seed: 0, memberSeeds: [1], temperature: 1, topP: 1 })).toThrow(
        /2 members/,
      );
      expect(() => new TurnDecoder(members, 3, CAP, { seed: 0, memberSeeds: [1, 2], temperature: 1, topP: 1 })).toThrow(
        /equal shares/,
      );
      expect(
        () =>
          new TurnDecoder(members, 4, CAP, { seed: 0, memberSeeds: [1, 2], temperature: 1, topP: 1, useCache: false }),
      ).toThrow(/KV cache only/);
    } finally {
      members.dispose();
      models.forEach((m) => m.dispose());
    }
  });
});
