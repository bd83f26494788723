// The lesson's three arms as one population in a real Chromium (WebAssembly): retire-shell under schedules adaptive,
// never and none, at the smoke preset's size, queued from the form with the tab's default population. RetireOPD
// leads and OPD throughout rides along its student stage, so the Train view's side-by-side chart draws both curves
// while the leader trains; pure GRPO runs after them (or beside them where the machine has a second lane). The page
// is reloaded as soon as both curves are seen growing (the rider still riding: it leaves at the trigger, step
// 200 of 240): the queue resumes, every member from its own stored run, and ends with three curves and one retirement
// marker (OPD throughout and GRPO never retire).
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startAppServer, type AppServer } from './appServer';
import { SHORT } from './smokeSized';

describe('the lesson’s three arms as one population in the tab', () => {
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
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Each drawn member: its name, status, points drawn and trigger step ('' when it did not retire) */
  const members = () =>
    page.getByTestId('population-member').evaluateAll((els) =>
      els.map((e) => ({
        name: e.querySelector('.population-name')?.textContent ?? '',
        status: e.getAttribute('data-status') ?? '',
        points: Number(e.getAttribute('data-points')),
        trigger: e.getAttribute('data-trigger') ?? '',
      })),
    );

  it('draws RetireOPD and its riding OPD-throughout run live, resumes after a reload, and ends with three curves and one marker', async () => {
    await page.goto(`${server.url}#train?preset=retire-shell&backend=wasm`);
    await page.getByTestId('queue-open').click();
    await page.getByLabel('queue preset').getByRole('option', { name: 'retire-shell' }).waitFor({ state: 'attached' });
    await page.getByLabel('queue preset').selectOption('retire-shell');
    await page.getByLabel('queue seeds').fill('0');
    await page.getByLabel('queue axes').fill('student.schedule=adaptive,never,none');
    await page.getByLabel('queue backend').selectOption('wasm');
    // a ride long enough for the chart, which reloads the curves from storage every 2 s, to draw the rider while it
    // rides: the gate needs two windows, so RetireOPD retires at step 200 of 240 (a smoke-sized step takes tens of ms)
    await page
      .getByLabel('queue overrides')
      .fill([...SHORT, 'student.steps=240', 'student.gate.windowSize=100', 'runtime.checkpointEvery=10'].join('\n'));
    await expect.poll(() => page.getByTestId('queue-estimate').textContent()).toMatch(/ride/);
    // live: while the leader trains its student stage, the rider's curve grows beside it. The page records that
    // moment and reloads itself there, rather than wait for a poll from here to catch it
    const reloaded = page.waitForEvent('load', { timeout: 900_000 });
    const seen = page.evaluate(
      () =>
        new Promise<{ pair: string[]; population: string }>((resolve) => {
          new MutationObserver((_, observer) => {
            const [leader, rider] = [...document.querySelectorAll('[data-testid="population-member"]')].map((e) => ({
              name: e.querySelector('.population-name')?.textContent ?? '',
              status: e.getAttribute('data-status') ?? '',
              points: Number(e.getAttribute('data-points')),
            }));
            if (!leader || !rider || leader.status !== 'running' || leader.points <= 0 || rider.points <= 0) return;
            observer.disconnect();
            resolve({
              pair: [leader.name, rider.name, rider.status],
              population: document.querySelector('[data-testid="population"]')?.textContent ?? '',
            });
            setTimeout(() => location.reload(), 50);
          }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
        }),
    );
    await page.getByTestId('queue-start').click();
    const queue = page.getByTestId('queue').first();
    await expect.poll(() => queue.getAttribute('data-state'), { timeout: 30_000 }).toBe('running');
    const idBefore = await queue.getAttribute('data-queue-id');
    const live = await seen;
    expect(live.pair).toEqual(['RetireOPD', 'OPD throughout', 'running']);
    expect(live.population).toContain('(live)');

    // a reload mid-population: the stored queue resumes, each member from its own stored run, and ends done
    await reloaded;
    await expect.poll(() => queue.getAttribute('data-queue-id'), { timeout: 60_000 }).toBe(idBefore);
    // every lane works after the reload: the leader and its rider each resume, one in each lane, and both train —
    // the page watches the members' stored student lines (redrawn from storage every 2 s) until two of them each grow
    // past the fewest it has seen of them (a resume first drops the lines after its checkpoint). Event-based: no
    // fixed wait; how long it took is printed, not asserted
    const growing = await page.evaluate(
      () =>
        new Promise<{ members: string[]; ms: number }>((resolve) => {
          const fewest = new Map<string, number>();
          const grew = new Set<string>();
          const look = (observer?: MutationObserver) => {
            for (const e of document.querySelectorAll('[data-testid="population-member"]')) {
              const name = e.querySelector('.population-name')?.textContent ?? '';
              const points = Number(e.getAttribute('data-points'));
              if (!fewest.has(name) || points < fewest.get(name)!) fewest.set(name, points);
              else if (points > fewest.get(name)! && e.getAttribute('data-status') === 'running') grew.add(name);
            }
            if (grew.size < 2) return;
            observer?.disconnect();
            resolve({ members: [...grew].sort(), ms: Math.round(performance.now()) });
          };
          const observer = new MutationObserver(() => look(observer));
          observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
          look(observer);
        }),
    );
    expect(growing.members).toEqual(['OPD throughout', 'RetireOPD']);
    console.log(`after the reload both lanes trained: ${growing.members.join(' and ')} grew by ${growing.ms} ms`);
    await expect.poll(() => queue.getAttribute('data-state'), { timeout: 1_500_000, interval: 1000 }).toBe('done');
    const items = queue.getByTestId('queue-item');
    expect(await items.and(page.locator('[data-status=completed]')).count()).toBe(3);
    // no hole and no repeat: every member's stored student lines are steps 1…240, in order
    const studentSteps = await page.evaluate(async (id) => {
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
      const runs = (await getAll<{ id: string; queueId: string; label: string }>('runs')).filter(
        (r) => r.queueId === id,
      );
      const lines = await getAll<{ runId: string; stage: string; step: number }>('metrics');
      db.close();
      return runs.map((r) => ({
        label: r.label,
        steps: lines.filter((l) => l.runId === r.id && l.stage === 'student').map((l) => l.step),
      }));
    }, idBefore);
    expect(studentSteps).toHaveLength(3);
    for (const r of studentSteps) expect(r.steps, r.label).toEqual(Array.from({ length: 240 }, (_, i) => i + 1));

    // three curves, one retirement (RetireOPD's), its marker the chart's only one
    await expect
      .poll(async () => (await members()).map((m) => [m.name, m.status, m.points > 0, m.trigger !== '']), {
        timeout: 30_000,
      })
      .toEqual([
        ['RetireOPD', 'completed', true, true],
        ['OPD throughout', 'completed', true, false],
        ['GRPO', 'completed', true, false],
      ]);
    const chart = page.getByTestId('population-chart');
    await expect.poll(() => chart.locator('.recharts-reference-line').count()).toBe(1);
    await expect.poll(() => chart.locator('.recharts-line').count()).toBe(3);
    expect(pageErrors).toEqual([]);
  }, 3_000_000);
});
