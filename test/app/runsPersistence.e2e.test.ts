// Stored runs end to end in a real Chromium (smoke preset on WebAssembly): a link fills the form, a run started
// from it is saved in IndexedDB as it goes, a reload mid-run keeps its logged steps and lists it as interrupted,
// resuming it from its last checkpoint ends with exactly the numbers of an uninterrupted run of the same link; a
// queue of the `schedules` sweep (shortened to smoke size) gives the comparison table `npm run sweep` computes from
// the same runs; a CLI run folder imports into the table. RETIRELAB_SCREENSHOT=path saves the compare view there.
// Main-thread long tasks while a run trains are measured with a PerformanceObserver and printed (a measurement, not
// an assertion: on 2 shared cores timings say little).
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { applyOverrides } from '../../src/core/experiment/config';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import type { RunSummary } from '../../src/core/experiment/summary';
import {
  compareRuns,
  formatComparisonTable,
  validationCurve,
  withYardsticks,
} from '../../src/core/experiment/comparison';
import { expandSweep } from '../../src/core/experiment/sweep';
import { lookupPreset } from '../support/presets';
import { startAppServer, type AppServer } from './appServer';
import { SHORT } from './smokeSized';

interface Stored {
  record: { status: string; summary: { test: unknown; gate: unknown; teacherPerformance: unknown } | null };
  student: Record<string, number | null>[];
  stages: Record<string, number>;
}

/** A run's record and metrics straight from the page's IndexedDB (the store the app writes). */
async function readRun(page: Page, runId: string): Promise<Stored> {
  return page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('retirelab-runs');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const get = <T>(store: string, q: IDBValidKey | IDBKeyRange) =>
      new Promise<T>((resolve, reject) => {
        const req = db.transaction(store).objectStore(store).getAll(q);
        req.onsuccess = () => resolve(req.result as T);
        req.onerror = () => reject(req.error);
      });
    const record = (await get<Stored['record'][]>('runs', id))[0]!;
    const rows = await get<{ stage: string; step: number; line: Record<string, number> }[]>(
      'metrics',
      IDBKeyRange.bound([id], [id, []]),
    );
    db.close();
    const stages: Record<string, number> = {};
    for (const r of rows) stages[r.stage] = (stages[r.stage] ?? 0) + 1;
    const student = rows
      .filter((r) => r.stage === 'student')
      .sort((a, b) => a.step - b.step)
      // JSON-safe for the comparison (NaN → null)
      .map((r) => JSON.parse(JSON.stringify(r.line)) as Record<string, number | null>);
    return { record, student, stages };
  }, runId);
}

/** Metric keys that measure time, not the computation (they differ between two identical runs). */
const TIMING = /time|_ms|ms\/|wall|seconds|throughput|per_s/i;
const withoutTiming = (lines: Record<string, number | null>[]) =>
  lines.map((l) => Object.fromEntries(Object.entries(l).filter(([k]) => !TIMING.test(k))));

// One scenario in order (never shuffled): a run starts from the form the link test filled, and the import test
// copies a stored run's config and summary.
describe('stored runs in a real browser', { shuffle: false }, () => {
  let server: AppServer;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
    page = await browser.newPage();
    // the machine is shared and loaded: Vite's first transform of the app can take minutes
    page.setDefaultTimeout(90_000);
    page.setDefaultNavigationTimeout(240_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // long tasks on the main thread (≥ 50 ms by definition), collected from the first paint on
    await page.addInitScript(() => {
      const w = window as unknown as { __longTasks: number[] };
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__longTasks.push(e.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const rows = () => page.getByTestId('run-row');
  const status = () => page.getByTestId('run-status');

  it('names the wrong field of a bad link, and fills the form from a good one', async () => {
    await page.goto(`${server.url}#train?preset=smoke&seed=-2&set=student.windowSize=4`);
    const alerts = page.getByRole('alert').filter({ hasText: 'link:' });
    await alerts.first().waitFor({ timeout: 60_000 });
    const text = (await alerts.allTextContents()).join('\n');
    expect(text).toContain('link: seed: expected an integer ≥ 0');
    expect(text).toContain('link: set student.windowSize=4: unknown key "student.windowSize"');

    await page.goto(`${server.url}#train?preset=smoke&seed=5&backend=wasm`);
    await page.reload();
    await page.getByRole('option', { name: 'smoke' }).first().waitFor({ state: 'attached', timeout: 60_000 });
    await expect.poll(() => page.getByLabel('preset', { exact: true }).inputValue(), { timeout: 30_000 }).toBe('smoke');
    expect(await page.getByLabel('seed', { exact: true }).inputValue()).toBe('5');
    expect(await page.getByLabel('backend', { exact: true }).inputValue()).toBe('wasm');
    expect(await page.getByRole('alert').filter({ hasText: 'link:' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Train', level: 2 }).count()).toBe(1);
  }, 300_000);

  it('keeps a run through a reload and resumes it to the same numbers as an uninterrupted run', async () => {
    await page.getByTestId('run-start').click();
    // Pause is clicked in the page the moment the progress reads student step 7: a smoke student step takes tens of
    // milliseconds, so a click from here, after a poll, could come after the run's last step
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          new MutationObserver((_, observer) => {
            const m = /student (\d+)\//.exec(document.querySelector('[data-testid="run-progress"]')?.textContent ?? '');
            const pause = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Pause');
            if (!m || Number(m[1]) < 7 || !pause) return;
            observer.disconnect();
            pause.click();
            resolve();
          }).observe(document.body, { subtree: true, childList: true, characterData: true });
        }),
    );
    await expect.poll(() => status().textContent(), { timeout: 30_000, interval: 100 }).toBe('paused');
    const row = rows().first();
    const runId = (await row.getAttribute('data-run-id'))!;
    expect(await row.getAttribute('data-seed')).toBe('5');

    await page.reload();
    const stored = page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
    await expect.poll(() => stored.getAttribute('data-status'), { timeout: 60_000 }).toBe('interrupted');
    // the form came back from the URL, the steps logged before the reload are kept (at least up to the
    // checkpoint after student step 5), and the run can be resumed from that checkpoint
    expect(await page.getByLabel('seed', { exact: true }).inputValue()).toBe('5');
    const kept = await readRun(page, runId);
    expect(kept.stages.sft).toBe(8);
    expect(kept.stages.teacher).toBe(3);
    expect(kept.student.length).toBeGreaterThanOrEqual(5);
    expect(await stored.getByTestId('run-row-step').textContent()).toMatch(/student \d+\/20/);

    await stored.getByTestId('run-resume').click();
    await expect.poll(() => stored.getAttribute('data-status'), { timeout: 120_000, interval: 250 }).toBe('completed');
    const resumed = await readRun(page, runId);
    expect(resumed.student.map((l) => l.step)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));

    // the same link, uninterrupted
    await page.evaluate(() => ((window as unknown as { __longTasks: number[] }).__longTasks = []));
    await page.getByTestId('run-start').click();
    await expect.poll(() => rows().count(), { timeout: 30_000 }).toBe(2);
    const otherId = (await rows().evaluateAll(
      (els, id) => els.map((e) => e.getAttribute('data-run-id')).find((x) => x !== id),
      runId,
    ))!;
    const other = page.locator(`[data-testid="run-row"][data-run-id="${otherId}"]`);
    await expect.poll(() => other.getAttribute('data-status'), { timeout: 120_000, interval: 250 }).toBe('completed');
    const longTasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
    const straight = await readRun(page, otherId);

    expect(withoutTiming(resumed.student)).toEqual(withoutTiming(straight.student));
    expect(resumed.record.summary?.test).toEqual(straight.record.summary?.test);
    expect(resumed.record.summary?.gate).toEqual(straight.record.summary?.gate);
    expect(resumed.record.summary?.teacherPerformance).toEqual(straight.record.summary?.teacherPerformance);
    console.log(
      `main-thread long tasks during an uninterrupted smoke run: ${longTasks.length}, longest ${Math.max(0, ...longTasks).toFixed(0)} ms, total ${longTasks.reduce((a, b) => a + b, 0).toFixed(0)} ms`,
    );
    expect(pageErrors).toEqual([]);
  }, 600_000);

  it('queues the schedules sweep over two seeds, and its comparison table equals the sweep CLI’s for the same runs', async () => {
    await page.goto(`${server.url}#train?preset=smoke&backend=wasm`);
    await page.getByTestId('queue-open').click();
    await page.getByLabel('queue preset').getByRole('option', { name: 'schedules' }).waitFor({ state: 'attached' });
    await page.getByLabel('queue preset').selectOption('schedules');
    await page.getByLabel('queue seeds').fill('0,1');
    await page.getByLabel('queue axes').fill('student.schedule=adaptive,never');
    await page.getByLabel('queue backend').selectOption('wasm');
    await page.getByLabel('queue overrides').fill(SHORT.join('\n'));
    await page.getByTestId('queue-start').click();
    const queue = page.getByTestId('queue').first();
    await expect.poll(() => queue.getAttribute('data-state'), { timeout: 30_000 }).toBe('running');
    // a reload mid-queue (a run done, another going — with the tab's default population, a rider continuing alone
    // from where it left its leader, or the other lane's run): the stored queue picks up where it was — the finished
    // run is kept, the interrupted ones resume from their checkpoints, the rest start — and ends done. The page
    // reloads itself the moment it shows that state: with two lanes of smoke-sized runs it can last well under a
    // second, less than a poll from here may take
    const items = queue.getByTestId('queue-item');
    const idBefore = await queue.getAttribute('data-queue-id');
    const reloaded = page.waitForEvent('load', { timeout: 600_000 });
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          new MutationObserver((_, observer) => {
            const statuses = [...document.querySelectorAll('[data-testid="queue-item"]')].map((e) =>
              e.getAttribute('data-status'),
            );
            if (!statuses.includes('completed') || !statuses.includes('running')) return;
            observer.disconnect();
            resolve();
            setTimeout(() => location.reload(), 50);
          }).observe(document.body, { subtree: true, childList: true, attributes: true });
        }),
    );
    await reloaded;
    await expect.poll(() => queue.getAttribute('data-queue-id'), { timeout: 60_000 }).toBe(idBefore);
    await expect.poll(() => queue.getAttribute('data-state'), { timeout: 1_100_000, interval: 1000 }).toBe('done');
    expect(await items.and(page.locator('[data-status=completed]')).count()).toBe(4);
    await queue.getByTestId('queue-compare').click();
    const view = page.getByTestId('compare-view');
    await view.getByTestId('comparison-table').waitFor();
    const tab = await view.getByTestId('comparison-markdown').textContent();

    // what `npm run sweep -- --preset schedules --seeds 0,1 --vary student.schedule=adaptive,never --set …` computes
    // from the same runs: the core's points and order, the summaries these runs stored
    const queueId = (await queue.getAttribute('data-queue-id'))!;
    const stored = await page.evaluate(async (id) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open('retirelab-runs');
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const getAll = <T>(store: string): Promise<T[]> =>
        new Promise<T[]>((resolve) => {
          const req = db.transaction(store).objectStore(store).getAll();
          req.onsuccess = () => resolve(req.result as T[]);
        });
      const all = await getAll<{
        id: string;
        queueId: string;
        label: string;
        summary: unknown;
        config: unknown;
        detachedAt?: number | null;
      }>('runs');
      const metrics = await getAll<{ runId: string; stage: string; line: Record<string, unknown> }>('metrics');
      db.close();
      return all
        .filter((r) => r.queueId === id)
        .map((r) => ({
          label: r.label,
          detachedAt: r.detachedAt ?? null,
          summary: r.summary,
          env: (r.config as { env: unknown }).env,
          // the student's metrics.jsonl lines, as the CLI's run folder holds them
          student: metrics.filter((m) => m.runId === r.id && m.stage === 'student').map((m) => m.line),
        }));
    }, queueId);
    const preset = loadPreset('schedules', lookupPreset, PRESET_NAMES);
    const runs = expandSweep(applyOverrides(preset.config, [...SHORT, 'runtime.backend=wasm']), {
      seeds: [0, 1],
      axes: { 'student.schedule': ['adaptive', 'never'] },
    });
    expect(stored.map((r) => r.label).sort()).toEqual(runs.map((r) => r.label).sort());
    // no hole and no repeat after the reload: every run's student lines are steps 1…20, in order
    for (const r of stored)
      expect(
        r.student.map((l) => l.step),
        r.label,
      ).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // the tab's default population: each seed's OPD-throughout run rode along its RetireOPD run and left it at the
    // trigger step. The reload came once a run had completed, so at least that run's group was past its trigger; the
    // other group, in the other lane, may have been a few steps behind it, with its rider still riding: the reload
    // interrupted both, and each resumed alone from its own checkpoint (no detach then, the same numbers)
    const detached = [0, 1].map((seed) => {
      const never = stored.find((r) => r.label === `student.schedule=never seed=${seed}`)!;
      const adaptive = stored.find((r) => r.label === `student.schedule=adaptive seed=${seed}`)!;
      const trigger = (adaptive.summary as RunSummary).gate.triggerStep;
      expect([trigger, null], `seed ${seed}`).toContain(never.detachedAt);
      return never.detachedAt === trigger;
    });
    expect(detached).toContain(true);
    const cli = formatComparisonTable(
      compareRuns(
        withYardsticks(
          runs.map((r) => {
            const s = stored.find((x) => x.label === r.label)!;
            return {
              point: r.point,
              summary: s.summary as RunSummary,
              curve: validationCurve(s.student),
              envKey: JSON.stringify(s.env),
            };
          }),
        ),
      ),
    );
    expect(tab).toBe(cli);
    expect(cli.split('\n')).toHaveLength(4);
    if (process.env.RETIRELAB_SCREENSHOT) {
      await view.getByTestId('compare-metric').selectOption('actor/entropy');
      await view.scrollIntoViewIfNeeded();
      // the chart redrawn for the new metric (its caption names it; lines are not animated), and no tooltip in it
      await view.locator('figcaption').filter({ hasText: 'actor/entropy' }).waitFor();
      await page.mouse.move(0, 0);
      await page.waitForFunction(() =>
        [...document.querySelectorAll('.recharts-tooltip-wrapper')].every(
          (el) => getComputedStyle(el).visibility === 'hidden',
        ),
      );
      await view.screenshot({ path: process.env.RETIRELAB_SCREENSHOT });
    }
    expect(pageErrors).toEqual([]);
  }, 1_200_000);

  it('imports a CLI run folder into the table', async () => {
    const before = await rows().count();
    const { config, summary } = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve) => {
        const r = indexedDB.open('retirelab-runs');
        r.onsuccess = () => resolve(r.result);
      });
      const all = await new Promise<{ config: unknown; summary: unknown }[]>((resolve) => {
        const req = db.transaction('runs').objectStore('runs').getAll();
        req.onsuccess = () => resolve(req.result as never);
      });
      db.close();
      return all.find((r) => r.summary !== null)!;
    });
    const file = (name: string, text: string) => ({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
    await page
      .getByTestId('import-files')
      .setInputFiles([
        file('config.json', JSON.stringify({ ...(config as object), seed: 77 })),
        file('metrics.jsonl', '{"step":1,"rollout/success_rate":0.5}\n{"step":2,"rollout/success_rate":null}\n'),
        file('summary.json', JSON.stringify({ ...(summary as object), seed: 77 })),
      ]);
    await expect.poll(() => rows().count(), { timeout: 30_000 }).toBe(before + 1);
    const imported = page.locator('[data-testid="run-row"][data-seed="77"]');
    expect(await imported.getAttribute('data-status')).toBe('imported');
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
