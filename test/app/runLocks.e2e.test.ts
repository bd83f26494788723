// One tab owns a run, in a real Chromium: two pages of one browser open the same stored run. While the first
// trains it, the second lists it as "running in another tab", its step moving with the first's (BroadcastChannel),
// with no "continue", and shows it read-only in its Train view; once the first tab closes (its Web Lock freed) the
// second lists it interrupted and continues it from its checkpoint, and its Stop stops it at once.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { openTrainPage, startAppServer, type AppServer } from './appServer';

describe('one tab owns a run, in a real browser', () => {
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

  it('shows the run read-only and live in the second tab, and lets it continue only once the first is gone', async () => {
    // smoke with 400 student steps: long enough to watch (checkpoints every 5 steps, as the preset says)
    const first = await open('#train?preset=smoke&backend=wasm&set=student.steps=400');
    await first.getByTestId('run-start').click();
    const firstRow = first.getByTestId('run-row').first();
    const stepOf = async (row: ReturnType<Page['locator']>) =>
      Number(/student (\d+)\//.exec((await row.getByTestId('run-row-step').allTextContents())[0] ?? '')?.[1] ?? -1);
    await expect.poll(() => stepOf(firstRow), { timeout: 180_000, interval: 250 }).toBeGreaterThanOrEqual(6);
    const runId = (await firstRow.getAttribute('data-run-id'))!;

    const second = await open('#train');
    const row = second.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
    await expect
      .poll(() => row.getAttribute('data-status'), { timeout: 30_000, interval: 200 })
      .toBe('running in another tab');
    expect(await row.getByTestId('run-resume').count()).toBe(0);
    expect(await row.getByRole('button', { name: 'delete' }).isDisabled()).toBe(true);
    // live: the step shown in the second tab moves with the first tab's run
    const seen = await stepOf(row);
    await expect.poll(() => stepOf(row), { timeout: 60_000, interval: 200 }).toBeGreaterThan(seen);

    // shown in the second tab's Train view: read-only, its progress moving with the first tab's
    await row.getByRole('button', { name: 'show' }).click();
    await expect
      .poll(() => second.getByTestId('run-status').textContent(), { timeout: 30_000, interval: 200 })
      .toBe('running in another tab');
    const remoteStep = async () =>
      Number(
        /student (\d+)\//.exec((await second.getByTestId('run-remote-step').allTextContents())[0] ?? '')?.[1] ?? -1,
      );
    const shownStep = await remoteStep();
    await expect.poll(remoteStep, { timeout: 60_000, interval: 200 }).toBeGreaterThan(shownStep);
    expect(await second.getByTestId('run-start').isEnabled()).toBe(true);

    // the first tab goes away mid-run: its lock is freed, the run is interrupted and the second tab may continue it
    await first.close();
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 60_000, interval: 200 }).toBe('interrupted');
    await row.getByTestId('run-resume').click();
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 60_000, interval: 200 }).toBe('running');
    await second.getByRole('button', { name: 'Stop' }).click();
    await expect
      .poll(() => second.getByTestId('run-status').textContent(), { timeout: 60_000, interval: 200 })
      .toBe('stopped');
    expect(pageErrors).toEqual([]);
  }, 420_000);
});
