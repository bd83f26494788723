// Main-thread long tasks while a run trains, on the production build (what users get: React without its
// development checks, which under a DevTools-protocol client such as Playwright cost far more than in real use).
// A measurement to report, not a test:  npx tsx test/app/measureLongTasks.ts [preset] [backend] [--trace]
// Builds the app into a temp folder, serves it with `vite preview`, opens #train?preset=…&backend=…, starts a run
// and prints the PerformanceObserver('longtask') entries from the click on Start until the run completes.
// --trace: an unminified build, and what each long task was made of (longTaskTrace.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../support/chromium';
import { buildAndPreview } from './previewBuild';
import { printLongTasks, startLongTaskTrace } from './longTaskTrace';

const trace = process.argv.includes('--trace');
const [preset = 'smoke', backend = 'wasm'] = process.argv.slice(2).filter((a) => a !== '--trace');
const outDir = mkdtempSync(join(tmpdir(), 'retirelab-build-'));
try {
  const server = await buildAndPreview({ outDir, minify: !trace });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(300_000);
    await page.addInitScript(() => {
      const w = window as unknown as { __longTasks: number[] };
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__longTasks.push(e.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(`${server.url}#train?preset=${preset}&backend=${backend}`);
    await page.getByTestId('run-start').and(page.locator(':not([disabled])')).waitFor();
    await page.evaluate(() => ((window as unknown as { __longTasks: number[] }).__longTasks = []));
    const t0 = Date.now();
    const cdp = trace ? await startLongTaskTrace(browser, page) : null;
    await page.getByTestId('run-start').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=run-status]')?.textContent === 'completed',
      null,
      { polling: 250, timeout: 1_800_000 },
    );
    const seconds = (Date.now() - t0) / 1000;
    if (cdp) await printLongTasks(cdp);
    const tasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
    const sorted = [...tasks].sort((a, b) => b - a);
    console.log(
      `${preset} on ${backend}, production build: run ${seconds.toFixed(1)} s; main-thread long tasks (> 50 ms): ` +
        `${tasks.length}, longest ${(sorted[0] ?? 0).toFixed(0)} ms, total ${tasks.reduce((a, b) => a + b, 0).toFixed(0)} ms; ` +
        `the ten longest: ${sorted
          .slice(0, 10)
          .map((d) => d.toFixed(0))
          .join(', ')}`,
    );
  } finally {
    await browser.close();
    await server.close();
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
