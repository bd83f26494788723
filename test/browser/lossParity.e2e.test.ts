// Loss parity in a real browser: headless Chromium (SwiftShader for WebGL2 and WebGPU) loads test/browser/
// lossParity.html from a programmatic Vite dev server and runs parityFixture.ts on cpu, wasm, webgl and webgpu.
// Each backend's values, gradients and statistics are compared with the cpu results computed here in Node.
// Tolerances (norm-wise relative, per output): cpu 1e-6, wasm 1e-5, webgpu 1e-4, webgl 1e-4 (measured on
// SwiftShader: cpu 0, wasm 3.3e-7, webgl and webgpu 5.5e-7; GPU headroom for real drivers' transcendentals). The
// fixture includes two Adam steps with an explicit epsilon: with tfjs's default, webgl (epsilon 1e-4 there) is off by
// 6.5e-2 and fails — the harness catches that trap. A backend that cannot start in this browser is skipped with the reason printed; a missing
// Chromium skips the whole file with the reason.
import * as tf from '@tensorflow/tfjs';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeParityOutputs, parityErrors, type ParityOutputs } from '../engine/losses/parityFixture';
import type { ParityRun } from './lossParity';
import { CHROMIUM_PATH as CHROMIUM, launchChromium } from '../support/chromium';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TOLERANCE = { cpu: 1e-6, wasm: 1e-5, webgpu: 1e-4, webgl: 1e-4 } as const;
const BACKENDS = ['cpu', 'wasm', 'webgl', 'webgpu'] as const;

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`SKIPPED browser parity: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

describe.skipIf(!haveChromium)('loss parity in headless Chromium (cpu in Node is the reference)', () => {
  let server: ViteDevServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let cacheDir = '';
  let reference: ParityOutputs;

  beforeAll(async () => {
    await tf.setBackend('cpu');
    reference = (await computeParityOutputs()).outputs;
    cacheDir = mkdtempSync(join(tmpdir(), 'retirelab-vite-'));
    server = await createServer({
      root: ROOT,
      configFile: join(ROOT, 'vite.config.ts'),
      cacheDir,
      logLevel: 'warn',
      server: { host: '127.0.0.1', port: 5400 + Math.floor(Math.random() * 400), strictPort: false, hmr: false },
      optimizeDeps: { entries: ['test/browser/lossParity.html'] },
    });
    await server.listen();
    const url = server.resolvedUrls?.local[0];
    if (url === undefined) throw new Error('the Vite dev server reported no local URL');
    context = await launchChromium();
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => console.warn(`page error: ${e.message}`));
    await page.goto(new URL('test/browser/lossParity.html', url).href);
    await page.waitForFunction(
      () => (globalThis as { lossParity?: { ready: boolean } }).lossParity?.ready === true,
      null,
      {
        timeout: 120_000,
      },
    );
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
  });

  for (const backend of BACKENDS) {
    it(`${backend}: every value, gradient and statistic within ${TOLERANCE[backend]} of Node cpu`, async (ctx) => {
      const run = (await page.evaluate(
        (b) => (globalThis as unknown as { lossParity: { run: (b: string) => Promise<unknown> } }).lossParity.run(b),
        backend,
      )) as ParityRun;
      if (!run.ok && run.outputs === undefined && run.error?.includes('is not available')) {
        console.warn(`SKIPPED browser ${backend}: ${run.error}`);
        ctx.skip();
        return;
      }
      expect(run.error, `browser ${backend} threw`).toBeUndefined();
      expect(run.leakedTensors).toBe(0);
      const errs = Object.entries(parityErrors(run.outputs ?? {}, reference)).sort((a, b) => b[1] - a[1]);
      console.log(
        `browser ${backend} vs Node cpu: worst ${errs
          .slice(0, 3)
          .map(([k, v]) => `${k} ${v.toExponential(2)}`)
          .join(', ')} (${errs.length} outputs) ${JSON.stringify(run.info)}`,
      );
      for (const [name, err] of errs) expect(err, `${backend} ${name}`).toBeLessThanOrEqual(TOLERANCE[backend]);
      if (backend === 'webgpu') {
        // the lab's fused WGSL kernels (src/engine/kernels) ran, and equal the composed ops within 1e-5 here too
        expect(run.info?.fusedKernels).toBe(true);
        expect(run.info?.fusedKernelCalls as number).toBeGreaterThan(0);
        const fusedErrs = Object.entries(parityErrors(run.outputs ?? {}, run.composedOutputs ?? {}));
        const worst = fusedErrs.sort((a, b) => b[1] - a[1])[0];
        console.log(`browser webgpu fused vs composed: worst ${worst?.[0]} ${worst?.[1].toExponential(2)}`);
        for (const [name, err] of fusedErrs) expect(err, `fused vs composed ${name}`).toBeLessThanOrEqual(1e-5);
      }
    }, 240_000);
  }
});
