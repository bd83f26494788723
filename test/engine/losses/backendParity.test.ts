// Backend parity in Node: the fixed loss computations of parityFixture.ts on cpu (reference), wasm and webgpu
// (Dawn via the npm `webgpu` package on Chromium's SwiftShader). Tolerances (norm-wise relative, per output):
//   wasm 1e-5, webgpu 1e-4. A backend that cannot start here is skipped with the reason printed.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../../../src/engine/backend';
import { computeParityOutputs, parityErrors, type ParityOutputs } from './parityFixture';

const TOLERANCE = { wasm: 1e-5, webgpu: 1e-4 } as const;

let cpu: ParityOutputs;

beforeAll(async () => {
  await initBackend('cpu');
  const r = await computeParityOutputs();
  expect(r.leakedTensors).toBe(0);
  cpu = r.outputs;
});

async function tryBackend(name: 'wasm' | 'webgpu'): Promise<string | null> {
  try {
    await initBackend(name);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

describe('loss parity across backends in Node (cpu is the reference)', () => {
  for (const backend of ['wasm', 'webgpu'] as const) {
    it(`${backend}: every value, gradient and statistic within ${TOLERANCE[backend]} of cpu`, async (ctx) => {
      const why = await tryBackend(backend);
      if (why !== null) {
        console.warn(`SKIPPED ${backend}: ${why}`);
        ctx.skip();
        return;
      }
      expect(tf.getBackend()).toBe(backend);
      const r = await computeParityOutputs();
      expect(r.leakedTensors).toBe(0);
      const errs = parityErrors(r.outputs, cpu);
      const worst = Object.entries(errs).sort((a, b) => b[1] - a[1]);
      console.log(
        `${backend} vs cpu: worst relative errors ${worst
          .slice(0, 4)
          .map(([k, v]) => `${k} ${v.toExponential(2)}`)
          .join(', ')} (${worst.length} outputs)`,
      );
      for (const [name, err] of worst) expect(err, `${backend} ${name}`).toBeLessThanOrEqual(TOLERANCE[backend]);
      await tf.setBackend('cpu');
    });
  }
});
