// The Train view end to end in a real Chromium: the smoke preset runs in the module worker on WebAssembly (the
// .wasm files served by the app itself, nothing off this machine), its step events reach the charts, and the gate
// retires the teacher at step 10 as the preset is tuned to, and replaying the run's own metrics.jsonl in the
// replay view gives the same trigger step. A second run is stopped from the page.
// Measured here (2 shared cores): the smoke run takes ~4 s in the worker, ~15 s with page and worker start-up.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startAppServer, type AppServer } from './appServer';

describe('the Train view in a real browser', () => {
  let server: AppServer;
  let browser: BrowserContext;
  let page: Page;
  const offHost: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
    // context-wide, so that the worker's own requests (wasm binaries, modules) are checked too
    await browser.route('**/*', (route) => {
      const target = new URL(route.request().url());
      if (target.hostname !== '127.0.0.1' && !['data:', 'blob:'].includes(target.protocol)) {
        offHost.push(target.href);
        return route.abort();
      }
      return route.continue();
    });
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.url}#train`);
    await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
    // presets are fetched from /presets/*.json: the select is enabled once they are in
    await page.locator('select:not([disabled])').first().waitFor({ timeout: 30_000 });
    await page.getByRole('option', { name: 'smoke' }).waitFor({ state: 'attached', timeout: 30_000 });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('names an unknown override key and a bad value, and will not start with them', async () => {
    const overrides = page.getByLabel('overrides', { exact: true });
    await overrides.fill('student.lambdaOpd=0.2\nstudent.windowSize=4');
    const alert = page.getByRole('alert').filter({ hasText: 'overrides:' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('unknown key "student.windowSize"');
    expect(await page.getByRole('button', { name: 'Start' }).isDisabled()).toBe(true);
    await overrides.fill('student.lambdaOpd=lots');
    expect(await alert.textContent()).toBe('overrides: student.lambdaOpd: expected a number, got "lots"');
    await overrides.fill('');
    expect(await page.getByRole('button', { name: 'Start' }).isEnabled()).toBe(true);
  });

  it('runs the smoke preset on wasm: step events arrive and the teacher retires at step 10', async () => {
    await page.getByLabel('preset', { exact: true }).selectOption('smoke');
    await page.getByLabel('backend', { exact: true }).selectOption('wasm');
    await page.getByRole('button', { name: 'Start' }).click();
    const status = page.getByTestId('run-status');
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).toMatch(/running|completed/);
    expect(await page.getByTestId('run-backend').textContent()).toBe('backend: wasm');
    await expect.poll(() => status.textContent(), { timeout: 120_000, interval: 500 }).toBe('completed');
    // step metrics reached the charts: the student's entropy and success lines, and the SFT gradient cosine (charts
    // redraw one at a time and keep to a share of the main thread, so on a loaded machine the last values of a fast
    // run may be drawn some seconds after "completed")
    for (const chart of ['train-entropy', 'train-success', 'train-grad-cosine', 'train-window-mean']) {
      await expect
        .poll(() => page.getByTestId(chart).locator('.recharts-line').count(), { message: chart, timeout: 30_000 })
        .toBeGreaterThan(0);
    }
    expect(await page.getByText('teacher retired at step 10').count()).toBeGreaterThan(0);
    // the alignment chart takes its marker in its own redraw, which may come after the charts above
    await expect
      .poll(() => page.getByTestId('train-alignment').getByText('retired @ 10').count(), { timeout: 30_000 })
      .toBe(1);
    expect(await page.getByTestId('summary-test-success').textContent()).toMatch(/^\d+\.\d%$/);

    // the run's own metrics.jsonl, replayed through the gate with the run's S_T and gate settings, agrees with it
    await page.getByRole('button', { name: 'Replay this run’s gate' }).click();
    await page.getByRole('heading', { name: 'Gate replay', level: 2 }).waitFor();
    expect(await page.getByTestId('summary-trigger-step').textContent()).toBe('10');
    expect(await page.getByTestId('summary-agreement').textContent()).toContain('✓ agrees');
    await page.getByRole('link', { name: 'Train' }).click();
    await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor();
    expect(offHost).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('pauses, resumes and stops a longer run from the page at step boundaries', async () => {
    await page.getByLabel('preset', { exact: true }).selectOption('retire-shell');
    await page.getByLabel('backend', { exact: true }).selectOption('wasm');
    await page.getByRole('button', { name: 'Start' }).click();
    const progress = page.getByTestId('run-progress');
    const status = page.getByTestId('run-status');
    // read without waiting: the progress element appears only once the first stage starts
    const progressText = async () => (await progress.allTextContents())[0] ?? '';
    // every progress text the page shows, with its time, recorded in the page (a MutationObserver misses none)
    await page.evaluate(() => {
      const log: { t: number; text: string }[] = [];
      (window as unknown as { progressLog: typeof log }).progressLog = log;
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid="run-progress"]')?.textContent ?? '';
        if (text !== '' && log.at(-1)?.text !== text) log.push({ t: performance.now(), text });
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const progressLog = () =>
      page.evaluate(() => (window as unknown as { progressLog: { t: number; text: string }[] }).progressLog);
    // three steps shown: the time between them is this run's step time on this machine, however loaded
    await expect.poll(async () => (await progressLog()).length, { timeout: 120_000, interval: 100 }).toBeGreaterThan(3);
    // a time left from the running stage's own steps, the later stage named with its steps (core/runLog/runEta.ts)
    await expect
      .poll(() => page.getByTestId('run-eta').textContent(), { timeout: 60_000, interval: 100 })
      .toMatch(/^about \d+ (s|min|h \d+ min) left in (SFT; then student \(400 steps\)|the student stage)$/);

    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => status.textContent(), { timeout: 30_000, interval: 100 }).toBe('paused');
    const held = await progressText();
    const before = await progressLog();
    // held for three of the run's own step times (the longest of its last three), not a fixed time that a slow
    // step outlasts: a run that went on while paused would have shown a new step within that window
    const stepMs = Math.max(50, ...before.slice(-4).flatMap((e, i, a) => (i === 0 ? [] : [e.t - a[i - 1]!.t])));
    await page.waitForFunction(
      ({ since, ms }) => performance.now() - since > ms,
      { since: before.at(-1)!.t, ms: 3 * stepMs },
      { timeout: 60_000 + 3 * stepMs },
    );
    expect((await progressLog()).slice(before.length)).toEqual([]);
    expect(await progressText()).toBe(held);

    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => status.textContent(), { timeout: 30_000, interval: 100 }).toBe('running');
    await expect.poll(progressText, { timeout: 60_000, interval: 100 }).not.toBe(held);

    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => status.textContent(), { timeout: 60_000, interval: 250 }).toBe('stopped');
    expect(await page.getByRole('button', { name: 'Start' }).isEnabled()).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
