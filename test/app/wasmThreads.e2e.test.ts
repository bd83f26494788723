// Threaded WebAssembly in the app, in a real browser: the training worker of the dev server's app and of the
// production build (vite build + vite preview, minified — where the pthread helpers used to die with "e is not
// defined") starts the threaded-SIMD wasm binary with one XNNPACK thread per logical core when the page is
// cross-origin isolated, and the Train view's badge shows the flavour and the thread count the backend reports
// (getThreadsCount(), not the requested count), with the thread count pinned by the `?threads=N` override of the
// start-up calibration. On a machine with one core, or a page that is not isolated, the
// expected badge is the single-threaded "simd × 1 thread" instead.
import { existsSync } from 'node:fs';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_PATH, launchChromium } from '../support/chromium';
import { buildAndPreview } from '../../cli/vitePreview';
import { startAppServer, type AppServer } from './appServer';

/** The production build of the whole app, served by Vite's preview server (same COOP/COEP headers). */
const startBuiltApp = (): Promise<AppServer> => buildAndPreview();

const servers: [string, () => Promise<AppServer>][] = [
  ['the dev server', startAppServer],
  ['the production build (vite build + preview)', startBuiltApp],
];

describe.skipIf(!existsSync(CHROMIUM_PATH))('threaded wasm in the training worker (headless Chromium)', () => {
  let browser: BrowserContext;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const [name, start] of servers) {
    describe(name, () => {
      let server: AppServer | undefined;
      beforeAll(async () => {
        server = await start();
      }, 240_000);
      afterAll(async () => {
        await server?.close();
      });

      it('runs the threaded-SIMD binary with one thread per logical core and shows it beside the backend', async () => {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${server?.url}#train`, { timeout: 120_000 }); // the dev server transforms on first load
        await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
        const env = await page.evaluate(() => ({
          isolated: globalThis.crossOriginIsolated,
          cores: navigator.hardwareConcurrency,
        }));
        expect(env.isolated, 'vite.config.ts serves COOP/COEP: the page must be cross-origin isolated').toBe(true);
        // the thread count is otherwise measured at start-up (src/app/train/startupCalibration.ts); the explicit
        // override pins it to one thread per core, the case under test
        await page.goto(`${server?.url}?threads=${env.cores}#train`, { timeout: 120_000 });
        await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
        const preset = page.getByLabel('preset', { exact: true });
        await preset.getByRole('option', { name: 'smoke' }).waitFor({ state: 'attached', timeout: 30_000 });
        await preset.selectOption('smoke');
        await page.getByLabel('backend', { exact: true }).selectOption('wasm');
        await page.getByRole('button', { name: 'Start', exact: true }).click();
        const badge = page.getByTestId('run-wasm');
        await badge.waitFor({ timeout: 120_000 });
        const text = (await badge.textContent()) ?? '';
        expect(await badge.getAttribute('title')).toContain(
          `thread calibration: ${env.cores} (override: ${env.cores})`,
        );
        await page.getByRole('button', { name: 'Stop', exact: true }).click();
        await page
          .getByRole('button', { name: 'Start', exact: true })
          .and(page.locator(':enabled'))
          .waitFor({ timeout: 120_000 });
        const m = /^(plain|simd|threaded-simd) × (\d+) threads?$/.exec(text);
        expect(m, `badge text "${text}"`).not.toBeNull();
        if (env.cores >= 2) {
          expect(m?.[1]).toBe('threaded-simd');
          expect(Number(m?.[2])).toBe(env.cores);
          expect(Number(m?.[2])).toBeGreaterThanOrEqual(2);
        } else {
          expect(text).toBe('simd × 1 thread');
        }
        expect(errors).toEqual([]);
        await page.close();
      }, 300_000);

      it('measures the thread count at start-up and shows the timings and the choice in the badge tooltip', async () => {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${server?.url}#train`, { timeout: 120_000 });
        await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
        const cores = await page.evaluate(() => navigator.hardwareConcurrency);
        const preset = page.getByLabel('preset', { exact: true });
        await preset.getByRole('option', { name: 'smoke' }).waitFor({ state: 'attached', timeout: 30_000 });
        await preset.selectOption('smoke');
        await page.getByLabel('backend', { exact: true }).selectOption('wasm');
        await page.getByRole('button', { name: 'Start', exact: true }).click();
        const badge = page.getByTestId('run-wasm');
        await badge.waitFor({ timeout: 120_000 });
        // Start was clicked as the page opened: the run waited for the calibration, whose timings the tooltip shows
        const title = page.locator('[data-testid="run-wasm"][title*="→"]');
        await title.waitFor({ timeout: 60_000 });
        const text = (await title.getAttribute('title')) ?? '';
        const badgeText = (await badge.textContent()) ?? '';
        await page.getByRole('button', { name: 'Stop', exact: true }).click();
        await page
          .getByRole('button', { name: 'Start', exact: true })
          .and(page.locator(':enabled'))
          .waitFor({ timeout: 120_000 });
        const m = /thread calibration: (\d+) threads? (\d+) ms, 1 thread (\d+) ms → (\d+) \(measured\)/.exec(text);
        if (cores >= 2) {
          expect(m, `badge title "${text}"`).not.toBeNull();
          expect(Number(m?.[1])).toBe(cores);
          expect([1, cores]).toContain(Number(m?.[4]));
          // and the run took the calibration's choice, not the default
          expect(badgeText).toMatch(new RegExp(`× ${m?.[4]} threads?$`));
        } else {
          expect(text).toContain('thread calibration: 1 (one logical core)');
        }
        expect(errors).toEqual([]);
        await page.close();
      }, 300_000);
    });
  }
});
