// The production build served as `vite preview` serves it (the app's own headers), for the measuring scripts that
// time the page as a user gets it (measureLongTasks.ts, measureReplayInTab.ts, measureImportInTab.ts,
// measureRunInTab.ts, measureQueueInTab.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { build, preview } from 'vite';
import { launchChromium } from '../support/chromium';
import { ROOT } from './appServer';

export interface PreviewedBuild {
  /** the page's URL, e.g. http://127.0.0.1:4321/ */
  url: string;
  close(): Promise<void>;
}

/** Build the app into `outDir` (minified unless `minify` is false) and serve it on a free port. */
export async function buildAndPreview(outDir: string, minify = true): Promise<PreviewedBuild> {
  const configFile = join(ROOT, 'vite.config.ts');
  await build({ root: ROOT, configFile, logLevel: 'error', build: { outDir, emptyOutDir: true, minify } });
  const server = await preview({
    root: ROOT,
    configFile,
    logLevel: 'error',
    build: { outDir },
    preview: { port: 0, host: '127.0.0.1' },
  });
  const address = server.httpServer.address();
  if (!address || typeof address === 'string') throw new Error('vite preview has no port');
  return {
    url: `http://127.0.0.1:${address.port}/`,
    close: () => new Promise<void>((resolve) => server.httpServer.close(() => resolve())),
  };
}

/**
 * The production build in headless Chromium, for a measuring script: built into a temp folder and served, with one
 * page open (its page errors collected, a default timeout of `timeoutMs`). `use` runs with it; the browser, the server
 * and the folder are closed and removed afterwards.
 */
export async function withPreviewPage<T>(
  timeoutMs: number,
  use: (page: Page, url: string, pageErrors: string[]) => Promise<T>,
): Promise<T> {
  const work = mkdtempSync(join(tmpdir(), 'retirelab-preview-'));
  try {
    const server = await buildAndPreview(join(work, 'dist'));
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(timeoutMs);
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      return await use(page, server.url, pageErrors);
    } finally {
      await browser.close();
      await server.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Record the page's main-thread long tasks from its first script on, in `window.__longTasks` ({start, duration} in
 * ms), and the moment a file is chosen (the input's change event, before React sees it) in `window.__t0`.
 */
export async function recordLongTasks(page: Page): Promise<void> {
  // tsx names the functions it compiles with a helper (__name) that the page lacks
  await page.addInitScript('globalThis.__name = (f) => f');
  await page.addInitScript(() => {
    const w = window as unknown as { __longTasks: { start: number; duration: number }[]; __t0: number };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
    document.addEventListener('change', () => (w.__t0 = performance.now()), { capture: true });
  });
}
