// The runs table at scale in a real Chromium, on the production build: a sweep-sized import of many small run
// folders (each a config.json of the smoke preset with its own seed), chosen with "import run folder…". The table
// holds only a window of row elements, every run is reachable by scrolling it (each seed seen once) and by the
// filter, and the page's longest main-thread task from the folder's choice until every run is listed is printed (a
// measurement, not an assertion: on 2 shared cores timings say little).
//   RUNS_TABLE_FOLDERS=n sets how many folders (default 10,000).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import { CHROMIUM_PATH, launchChromium } from '../support/chromium';
import { ROOT } from './appServer';
import { buildAndPreview, recordLongTasks, type PreviewedBuild } from './previewBuild';

const FOLDERS = Number(process.env.RUNS_TABLE_FOLDERS ?? 10_000);
/** seeds FIRST_SEED … FIRST_SEED + FOLDERS − 1: six digits, so a seed's text names one run in the filter */
const FIRST_SEED = 100_000;
/** at most this many row elements for any number of runs (a window of the table, not every run) */
const WINDOW = 200;

describe.skipIf(!existsSync(CHROMIUM_PATH))('the runs table with thousands of runs', { shuffle: false }, () => {
  let work: string;
  let server: PreviewedBuild;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'retirelab-runs-table-'));
    const config = loadPreset(
      'smoke',
      (n) => JSON.parse(readFileSync(join(ROOT, 'public/presets', `${n}.json`), 'utf8')) as unknown,
      PRESET_NAMES,
    ).config;
    for (let i = 0; i < FOLDERS; i++) {
      const dir = join(work, 'sweep', `run-${String(i).padStart(5, '0')}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, seed: FIRST_SEED + i }));
    }
    server = await buildAndPreview({ outDir: join(work, 'dist') });
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await recordLongTasks(page);
    await page.goto(`${server.url}#train`);
    await page.getByTestId('runs-table').waitFor({ timeout: 120_000 });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('imports every folder while the table holds only a window of row elements', async () => {
    await page.getByTestId('import-folder').setInputFiles(join(work, 'sweep'));
    // waited for in the page (a MutationObserver): a polling locator would itself make main-thread tasks
    const result = await page.evaluate(
      (n) =>
        new Promise<{ ms: number; tasks: { at: number; duration: number }[]; error: string }>((resolve) => {
          const w = window as unknown as { __longTasks: { start: number; duration: number }[]; __t0: number };
          const listed = () => document.querySelector('[data-testid=storage-used]')?.textContent?.startsWith(`${n} `);
          const error = () => document.querySelector('.runs [role=alert]')?.textContent ?? '';
          const finish = () =>
            // the long task that ends the import is reported once it is over
            setTimeout(
              () =>
                resolve({
                  ms: performance.now() - w.__t0,
                  tasks: w.__longTasks
                    .filter((t) => t.start + t.duration >= w.__t0)
                    .map((t) => ({ at: t.start - w.__t0, duration: t.duration })),
                  error: error(),
                }),
              1000,
            );
          if (listed() || error()) return finish();
          const watch = new MutationObserver(() => {
            if (!listed() && !error()) return;
            watch.disconnect();
            finish();
          });
          watch.observe(document.body, { subtree: true, childList: true, characterData: true });
        }),
      FOLDERS,
    );
    const sorted = [...result.tasks].sort((a, b) => b.duration - a.duration);
    console.log(
      `import of ${FOLDERS} run folders, production build: ${(result.ms / 1000).toFixed(1)} s until listed; ` +
        `main-thread long tasks (> 50 ms) meanwhile: ${result.tasks.length}, longest ` +
        `${(sorted[0]?.duration ?? 0).toFixed(0)} ms (${sorted
          .slice(0, 5)
          .map((t) => `${t.duration.toFixed(0)} ms at ${(t.at / 1000).toFixed(1)} s`)
          .join(', ')})`,
    );
    expect(result.error).toBe('');
    const rows = await page.getByTestId('run-row').count();
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThanOrEqual(WINDOW);
    expect(await page.getByTestId('runs-table').getAttribute('aria-rowcount')).toBe(String(FOLDERS + 1));
    expect(pageErrors).toEqual([]);
  }, 900_000);

  it('reaches every run by scrolling the table, each once', async () => {
    const seen = await page.evaluate(async () => {
      const scroller = document.querySelector('[data-testid=runs-table]')!.closest('.table-scroll') as HTMLElement;
      // the table re-renders in the scroll event, which comes before the next frame's callbacks
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      const seeds = new Set<string>();
      let most = 0;
      scroller.scrollTop = 0;
      for (;;) {
        await frame();
        const rows = scroller.querySelectorAll('[data-testid=run-row]');
        most = Math.max(most, rows.length);
        for (const r of rows) seeds.add(r.getAttribute('data-seed') ?? '');
        if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) break;
        scroller.scrollTop += Math.max(1, scroller.clientHeight);
      }
      return { seeds: [...seeds], most };
    });
    expect(seen.most).toBeLessThanOrEqual(WINDOW);
    const expected = Array.from({ length: FOLDERS }, (_, i) => String(FIRST_SEED + i));
    expect(seen.seeds.sort()).toEqual(expected);
  }, 900_000);

  it('finds any run by the filter', async () => {
    const filter = page.getByPlaceholder('preset, key, status…');
    for (const i of [0, Math.floor(FOLDERS / 2), FOLDERS - 1]) {
      const seed = String(FIRST_SEED + i);
      await filter.fill(seed);
      await expect
        .poll(() => page.getByTestId('run-row').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-seed'))), {
          timeout: 60_000,
        })
        .toEqual([seed]);
    }
    await filter.fill('');
    expect(pageErrors).toEqual([]);
  }, 300_000);
});
