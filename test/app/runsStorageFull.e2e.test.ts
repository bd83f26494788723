// A full browser storage in a real Chromium (WebAssembly, the smoke preset): the training worker's IndexedDB refuses
// the checkpoint after student step 10 as Chromium does on a full disk (DataError "Failed to write blobs (IOError)"),
// patched into the worker's script as the test serves it. A run alone then reads 'interrupted' in the Train view's
// badge and in the runs table alike, with Continue offered beside the badge; a queue's leader and the run riding
// along its student stage both end interrupted, and once room is made (the worker served unpatched again) the queue
// continues each from its own last stored checkpoint: every run ends with its 20 student lines, each once, in order.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { openTrainPage, startAppServer, type AppServer } from './appServer';

/** Put at the top of the worker's module: its first write of checkpoint student-000010 fails as on a full disk. */
const REFUSE_ONE_CHECKPOINT = `{
  const put = IDBObjectStore.prototype.put;
  let refused = false;
  IDBObjectStore.prototype.put = function (value, key) {
    if (!refused && this.name === 'checkpoints' && value && value.name === 'student-000010') {
      refused = true;
      throw new DOMException('Failed to write blobs (IOError)', 'DataError');
    }
    return put.call(this, value, key);
  };
}
`;

/** The run statuses a page shows while a run still goes. */
const GOING = ['starting', 'running', 'pausing', 'paused', 'stopping'];

describe('a full browser storage in the tab', () => {
  let server: AppServer;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  /** whether the worker's storage is "full" (its script is served with the refusal) */
  let full = true;

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
    // every new training worker (one per run) loads its script through here
    await browser.route(
      (url) => url.pathname.endsWith('/worker/trainingWorker.ts'),
      async (route) => {
        const response = await route.fetch();
        const body = await response.text();
        const { 'content-length': _length, ...headers } = response.headers();
        await route.fulfill({ response, headers, body: full ? REFUSE_ONE_CHECKPOINT + body : body });
      },
    );
    page = await openTrainPage(browser, server, '#train?preset=smoke&backend=wasm', pageErrors);
    page.setDefaultTimeout(90_000);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const badge = () => page.getByTestId('run-status');
  const row = (id: string) => page.locator(`[data-testid="run-row"][data-run-id="${id}"]`);

  /** Every stored run's student steps (from IndexedDB, as the worker wrote them), by run id. */
  const studentSteps = () =>
    page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open('retirelab-runs');
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const lines = await new Promise<{ runId: string; stage: string; step: number }[]>((resolve) => {
        const req = db.transaction('metrics').objectStore('metrics').getAll();
        req.onsuccess = () => resolve(req.result as { runId: string; stage: string; step: number }[]);
      });
      db.close();
      const steps: Record<string, number[]> = {};
      for (const l of lines) if (l.stage === 'student') (steps[l.runId] ??= []).push(l.step);
      return steps;
    });
  const ONE_TO_20 = Array.from({ length: 20 }, (_, i) => i + 1);

  it('shows a run cut off by a full storage as interrupted in the badge and the table, and continues it', async () => {
    full = true;
    await page.getByTestId('run-start').click();
    await badge().waitFor();
    // the run ends on its own at the refused checkpoint: wait for the badge to leave the going states
    await expect
      .poll(async () => GOING.includes((await badge().textContent()) ?? ''), { timeout: 300_000 })
      .toBe(false);
    expect(await badge().textContent()).toBe('interrupted');
    const id = (await page.getByTestId('run-row').first().getAttribute('data-run-id'))!;
    await expect.poll(() => row(id).getAttribute('data-status'), { timeout: 30_000 }).toBe('interrupted');
    expect(await row(id).getByTestId('run-row-error').textContent()).toMatch(/browser storage is full while/);
    const resume = page.getByTestId('run-continue');
    await resume.waitFor();
    full = false;
    await resume.click();
    await expect.poll(() => badge().textContent(), { timeout: 300_000, interval: 500 }).toBe('completed');
    await expect.poll(() => row(id).getAttribute('data-status'), { timeout: 30_000 }).toBe('completed');
    expect((await studentSteps())[id]).toEqual(ONE_TO_20);
    expect(pageErrors).toEqual([]);
  }, 600_000);

  it('leaves a queue’s leader and its rider interrupted, and continues each from its own checkpoint', async () => {
    full = true;
    await page.getByTestId('queue-open').click();
    await page.getByLabel('queue preset').getByRole('option', { name: 'smoke' }).waitFor({ state: 'attached' });
    await page.getByLabel('queue preset').selectOption('smoke');
    await page.getByLabel('queue seeds').fill('0');
    // RetireOPD leads; OPD throughout rides along until the trigger (student step 10, it leaves as step 11 begins)
    await page.getByLabel('queue axes').fill('student.schedule=adaptive,never');
    await page.getByLabel('queue backend').selectOption('wasm');
    await expect.poll(() => page.getByTestId('queue-estimate').textContent()).toMatch(/ride/);
    await page.getByTestId('queue-start').click();
    const queue = page.getByTestId('queue').first();
    const queueId = (await queue.getAttribute('data-queue-id'))!;
    await expect.poll(() => queue.getAttribute('data-state'), { timeout: 300_000, interval: 500 }).toBe('paused');
    const members = async () =>
      page.evaluate(async (qid) => {
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const r = indexedDB.open('retirelab-runs');
          r.onsuccess = () => resolve(r.result);
          r.onerror = () => reject(r.error);
        });
        const runs = await new Promise<{ id: string; queueId: string; label: string; status: string }[]>((resolve) => {
          const req = db.transaction('runs').objectStore('runs').getAll();
          req.onsuccess = () => resolve(req.result as { id: string; queueId: string; label: string; status: string }[]);
        });
        db.close();
        return runs
          .filter((r) => r.queueId === qid)
          .sort((a, b) => a.label.localeCompare(b.label))
          .map((r) => ({ id: r.id, label: r.label, status: r.status }));
      }, queueId);
    const cut = await members();
    expect(cut.map((m) => m.label)).toEqual(['student.schedule=adaptive seed=0', 'student.schedule=never seed=0']);
    // the leader and its rider alike, in the table as in storage
    expect(cut.map((m) => m.status)).toEqual(['interrupted', 'interrupted']);
    for (const m of cut)
      await expect.poll(() => row(m.id).getAttribute('data-status'), { timeout: 30_000 }).toBe('interrupted');
    // room made: the queue continues, each run from its own stored run (a run started afresh would have a new id)
    full = false;
    await queue.getByRole('button', { name: 'continue' }).click();
    await expect.poll(() => queue.getAttribute('data-state'), { timeout: 600_000, interval: 1000 }).toBe('done');
    const ended = await members();
    expect(ended.map((m) => [m.id, m.status])).toEqual(cut.map((m) => [m.id, 'completed']));
    const steps = await studentSteps();
    for (const m of ended) expect(steps[m.id], m.label).toEqual(ONE_TO_20);
    expect(pageErrors).toEqual([]);
  }, 900_000);
});
