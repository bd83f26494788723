// A Vite dev server of the whole app for real-browser tests, with its own dependency cache (tests run in parallel
// with other Vite servers) and the worker listed as an optimizeDeps entry so that Vite does not discover tfjs late
// and reload the page in the middle of a test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface AppServer {
  url: string;
  close(): Promise<void>;
}

export async function startAppServer(): Promise<AppServer> {
  const cacheDir = mkdtempSync(join(tmpdir(), 'retirelab-app-vite-'));
  const server: ViteDevServer = await createServer({
    root: ROOT,
    configFile: join(ROOT, 'vite.config.ts'),
    cacheDir,
    logLevel: 'error',
    server: { port: 0, host: '127.0.0.1', hmr: false },
    optimizeDeps: { entries: ['index.html', 'src/app/worker/trainingWorker.ts'] },
  });
  await server.listen();
  const address = server.httpServer?.address();
  if (!address || typeof address === 'string') throw new Error('vite dev server has no port');
  return {
    url: `http://127.0.0.1:${address.port}/`,
    async close() {
      await server.close();
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

/**
 * A new page of `browser` on the app at `hash`, once the Train view has its presets: page errors go to `errors`.
 * `viewport` sets the size before the page loads (presentation-mode tests).
 */
export async function openTrainPage(
  browser: BrowserContext,
  server: AppServer,
  hash: string,
  errors: string[],
  viewport?: { width: number; height: number },
): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  if (viewport) await page.setViewportSize(viewport);
  await page.goto(`${server.url}${hash}`, { timeout: 120_000 });
  await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
  await page
    .getByLabel('preset', { exact: true })
    .locator('option[value="smoke"]')
    .waitFor({ state: 'attached', timeout: 30_000 });
  return page;
}
