// The Train view on WebGPU in a real Chromium (SwiftShader here): the smoke preset, seed 2, runs in the app's
// module worker on webgpu and on wasm, and the two runs agree — every numeric metric the page exports within
// |webgpu − wasm| ≤ 1e-4 + 1e-3·|wasm| at every step, the teacher retiring at step 10 in both, no WebGPU
// validation error in the console. Before the lab's AddN fix this run drew flat zero charts and said nothing.
// Slow: WebGPU on SwiftShader is CPU-emulated (minutes for the webgpu run).
import type { BrowserContext, Page } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startAppServer, type AppServer } from './appServer';

const RTOL = 1e-3;
const ATOL = 1e-4;

type Line = Record<string, unknown>;

describe('the Train view on webgpu in a real browser', () => {
  let server: AppServer;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const gpuMessages: string[] = [];

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (/webgpu|validation|storage buffers|Invalid/i.test(m.text()) && m.type() !== 'log') gpuMessages.push(m.text());
    });
    await page.goto(`${server.url}#train`, { timeout: 120_000 });
    await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
    await page
      .getByLabel('preset', { exact: true })
      .getByRole('option', { name: 'smoke' })
      .waitFor({ state: 'attached', timeout: 60_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Runs smoke with seed 2 on `backend` from the form; returns the exported metrics lines that carry a step. */
  async function runSmoke(backend: 'wasm' | 'webgpu', timeout: number): Promise<Line[]> {
    await page.getByLabel('preset', { exact: true }).selectOption('smoke');
    await page.getByLabel('backend', { exact: true }).selectOption(backend);
    await page.getByLabel('seed', { exact: true }).fill('2');
    const status = page.getByTestId('run-status');
    // the previous run's final status stays on screen until this run starts: wait for this run to take over
    const before = (await status.allTextContents())[0] ?? null;
    await page.getByTestId('run-start').click();
    if (before !== null && /^(completed|failed|stopped)$/.test(before))
      await expect.poll(() => status.textContent(), { timeout: 120_000, interval: 100 }).not.toBe(before);
    await expect.poll(() => status.textContent(), { timeout, interval: 1000 }).toMatch(/^(completed|failed|stopped)$/);
    const log = await page.locator('.run-log').allTextContents();
    expect(await status.textContent(), log.join('\n')).toBe('completed');
    expect(await page.getByTestId('run-backend').textContent()).toBe(`backend: ${backend}`);
    expect(await page.getByText('teacher retired at step 10').count()).toBeGreaterThan(0);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download metrics.jsonl' }).click(),
    ]);
    const text = await readFile((await download.path()) as string, 'utf8');
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Line)
      .filter((l) => typeof l.step === 'number');
  }

  it('trains the smoke preset on webgpu in the worker with wasm’s metrics and trigger step', async () => {
    const wasm = await runSmoke('wasm', 180_000);
    const webgpu = await runSmoke('webgpu', 1_500_000);
    expect(webgpu.length).toBe(wasm.length);
    expect(wasm.length).toBeGreaterThanOrEqual(20);
    let compared = 0;
    wasm.forEach((ref, i) => {
      const got = webgpu[i] as Line;
      for (const [k, r] of Object.entries(ref)) {
        if (typeof r !== 'number' || /time|wall|_ms$|seconds/.test(k)) continue;
        const g = got[k];
        expect(typeof g, `line ${i} ${k}`).toBe('number');
        if (Math.abs((g as number) - r) > ATOL + RTOL * Math.abs(r))
          expect.fail(`line ${i} ${k}: webgpu ${String(g)} vs wasm ${r}`);
        compared++;
      }
    });
    expect(compared).toBeGreaterThan(100);
    console.log(`browser webgpu vs wasm: ${compared} metric values over ${wasm.length} lines within tolerance`);
    // the student trained: its losses and gradient norms are not flat zeros
    expect(webgpu.some((l) => typeof l['actor/grad_norm'] === 'number' && (l['actor/grad_norm'] as number) > 0)).toBe(
      true,
    );
    expect(gpuMessages).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 1_800_000);
});
