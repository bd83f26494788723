// A queue's runs in two lanes and two tabs, in a real Chromium (WebAssembly): while both lanes train, neither run
// can be deleted (the delete button is disabled, saying why); a second tab opened on the running queue lists the
// queue as running in another tab with no "forget queue", shows one of its runs live and read-only in its Train view
// (not "No run yet"), and cannot delete its runs either.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { openTrainPage, startAppServer, type AppServer } from './appServer';
import { SHORT } from './smokeSized';

describe('a running queue in two lanes and two tabs', () => {
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

  const open = (hash: string): Promise<Page> => openTrainPage(browser, server, hash, pageErrors);

  it('refuses to delete either lane’s run and shows the queue read-only and live in a second tab', async () => {
    const first = await open('#train?preset=smoke&backend=wasm');
    await first.getByTestId('queue-open').click();
    await first.getByLabel('queue preset').getByRole('option', { name: 'smoke' }).waitFor({ state: 'attached' });
    await first.getByLabel('queue preset').selectOption('smoke');
    // two seeds of one arm: two trajectory keys, so one run in each lane (no riders); long enough to look at
    await first.getByLabel('queue seeds').fill('0,1');
    await first.getByLabel('queue axes').fill('');
    await first.getByLabel('queue backend').selectOption('wasm');
    await first.getByLabel('queue overrides').fill([...SHORT, 'student.steps=400'].join('\n'));
    await first.getByTestId('queue-start').click();
    const running = first.locator('[data-testid="run-row"][data-status="running"]');
    await expect.poll(() => running.count(), { timeout: 300_000, interval: 250 }).toBe(2);
    for (const row of await running.all()) {
      const del = row.getByRole('button', { name: 'delete' });
      expect(await del.isDisabled()).toBe(true);
      expect(await del.getAttribute('title')).toBe('a running run cannot be deleted: stop it first');
    }

    const second = await open('#train');
    const queue = second.getByTestId('queue').first();
    await expect.poll(() => queue.textContent(), { timeout: 60_000, interval: 250 }).toMatch(/running in another tab/);
    expect(await queue.getByRole('button', { name: 'forget queue' }).count()).toBe(0);
    expect(await queue.getByRole('button', { name: 'continue' }).count()).toBe(0);
    await expect
      .poll(() => second.getByTestId('run-status').textContent(), { timeout: 60_000, interval: 250 })
      .toBe('running in another tab');
    const remote = second.locator('[data-testid="run-row"][data-status="running in another tab"]');
    await expect.poll(() => remote.count(), { timeout: 60_000, interval: 250 }).toBe(2);
    for (const row of await remote.all())
      expect(await row.getByRole('button', { name: 'delete' }).isDisabled()).toBe(true);
    // the first tab still trains both
    expect(await running.count()).toBe(2);
    expect(pageErrors).toEqual([]);
  }, 600_000);
});
