// The production build served as `vite preview` serves it (the app's own headers), for the measuring scripts that
// time the page as a user gets it (measureLongTasks.ts, measureReplayInTab.ts, measureImportInTab.ts,
// measureRunInTab.ts, measureQueueInTab.ts).
import type { Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { buildAndPreview } from '../../cli/vitePreview';

export { buildAndPreview, type PreviewedBuild } from '../../cli/vitePreview';

/**
 * The production build in headless Chromium, for a measuring script: built into a temp folder and served, with one
 * page open (its page errors collected, a default timeout of `timeoutMs`). `use` runs with it; the browser, the server
 * and the folder are closed and removed afterwards.
 */
export async function withPreviewPage<T>(
  timeoutMs: number,
  use: (page: Page, url: string, pageErrors: string[]) => Promise<T>,
): Promise<T> {
  const server = await buildAndPreview();
  try {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(timeoutMs);
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      return await use(page, server.url, pageErrors);
    } finally {
      await browser.close();
    }
  } finally {
    await server.close();
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
