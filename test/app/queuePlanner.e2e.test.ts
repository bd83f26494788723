// The queue form plans in a worker (src/app/runs/queuePlanner.ts), in a real Chromium: a change that makes 999 runs
// returns to the page at once — the form says it is planning, the runs filter takes typing meanwhile — and the plan
// of 999 runs arrives afterwards. The main thread's longest task from the change until the plan is shown is printed
// (a measurement, not an assertion: on 2 shared cores timings say little).
import { existsSync } from 'node:fs';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_PATH, launchChromium } from '../support/chromium';
import { openTrainPage, startAppServer, type AppServer } from './appServer';

describe.skipIf(!existsSync(CHROMIUM_PATH))('the queue form plans off the main thread', () => {
  let server: AppServer;
  let browser: BrowserContext;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('takes input while 999 runs are planned, then offers to queue them', async () => {
    const page = await openTrainPage(browser, server, '#train', pageErrors);
    await page.addScriptTag({
      content: `window.__longTasks = []; new PerformanceObserver((l) => { for (const e of l.getEntries())
        window.__longTasks.push({ start: e.startTime, duration: e.duration }); }).observe({ type: 'longtask' });`,
    });
    await page.getByTestId('queue-open').click();
    const presetSelect = page.getByLabel('queue preset');
    await presetSelect.getByRole('option', { name: 'retire-shell' }).waitFor({ state: 'attached' });
    await presetSelect.selectOption('retire-shell');
    await page.getByLabel('queue axes').fill('student.schedule=adaptive,never,none');
    await expect.poll(() => page.getByTestId('queue-start').textContent(), { timeout: 60_000 }).toBe('Queue 9 runs');
    const seeds = Array.from({ length: 333 }, (_, i) => i).join(',');
    // one change event as a user's typing makes it, then one keystroke in the runs filter, in the same task: what
    // the page shows right after both is what it rendered without waiting for the plan
    const right = await page.evaluate((text) => {
      const set = (el: HTMLInputElement | HTMLTextAreaElement, value: string) => {
        const proto = Object.getPrototypeOf(el) as object;
        Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
        el.dispatchEvent(new Event('input', { bubbles: true }));
      };
      (window as unknown as { __t0: number }).__t0 = performance.now();
      set(document.querySelector('[aria-label="queue seeds"]')!, text);
      const filter = document.querySelector<HTMLInputElement>('input[type=search]')!;
      set(filter, 'x');
      return {
        button: document.querySelector('[data-testid=queue-start]')!.textContent,
        planning: document.querySelector('[data-testid=queue-planning]') !== null,
        filter: filter.value,
      };
    }, seeds);
    expect(right).toEqual({ button: 'Queue  runs', planning: true, filter: 'x' });
    await expect.poll(() => page.getByTestId('queue-start').textContent(), { timeout: 120_000 }).toBe('Queue 999 runs');
    expect(await page.getByTestId('queue-planning').count()).toBe(0);
    expect(await page.getByTestId('queue-estimate').textContent()).toContain('333 of them ride along');
    const tasks = await page.evaluate(() => {
      const w = window as unknown as { __longTasks: { start: number; duration: number }[]; __t0: number };
      return w.__longTasks.filter((t) => t.start + t.duration >= w.__t0).map((t) => t.duration);
    });
    console.log(
      `queue form, 999 runs of retire-shell planned in the worker (dev build): main-thread long tasks from the ` +
        `change until the plan is shown: ${tasks.length}, longest ${Math.max(0, ...tasks).toFixed(0)} ms`,
    );
    expect(pageErrors).toEqual([]);
  }, 300_000);
});
