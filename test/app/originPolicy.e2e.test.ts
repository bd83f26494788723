// Nothing leaves the app's origin during a linked run, in a real Chromium on the dev server: a link whose
// teacher.checkpoint names another host (a second local server, 127.0.0.2) is refused with a config error naming
// the key, and that server receives no request; a normal linked run (smoke on wasm) makes only same-origin
// requests, the worker's included; and the Content-Security-Policy blocks a cross-origin fetch the page itself
// tries (the second wall, were a value to slip past the config checks), for the page and for the worker script.
import { createServer, type Server } from 'node:http';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startAppServer, type AppServer } from './appServer';

describe('the origin policy in a real browser', () => {
  let server: AppServer;
  let other: Server;
  let otherUrl: string;
  const otherHits: string[] = [];
  let browser: BrowserContext;
  /** every request the context saw (pages and their workers), as URLs */
  const requests: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startAppServer();
    other = createServer((req, res) => {
      otherHits.push(req.url ?? '');
      res.writeHead(404, { 'Access-Control-Allow-Origin': '*' }).end('no');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', resolve));
    const address = other.address();
    if (!address || typeof address === 'string') throw new Error('the second server has no port');
    otherUrl = `http://127.0.0.2:${address.port}`;
    browser = await launchChromium();
    browser.on('request', (r) => requests.push(r.url()));
    // the workers' own requests (fetch of presets, teachers, wasm binaries) go through the context's routes too
    await browser.route('**/*', (route) => {
      requests.push(route.request().url());
      return route.continue();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => other?.close(resolve));
  });

  const offOrigin = () =>
    [...new Set(requests)].filter((u) => {
      const url = new URL(u);
      return !['data:', 'blob:'].includes(url.protocol) && url.origin !== new URL(server.url).origin;
    });

  async function openTrain(hash: string): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.url}${hash}`);
    await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
    await page.getByRole('option', { name: 'smoke' }).waitFor({ state: 'attached', timeout: 30_000 });
    return page;
  }

  it('refuses a link whose teacher checkpoint is on another host, naming the key; that host gets no request', async () => {
    const hostile = `${otherUrl}/teachers/shell`;
    const page = await openTrain(`#train?preset=smoke&backend=wasm&set=teacher.checkpoint=${hostile}`);
    const alert = page.getByRole('alert').filter({ hasText: 'link: set teacher.checkpoint=' });
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.textContent()).toContain('teacher.checkpoint: expected a file path, not a URL or a scheme');
    const overrides = page.getByRole('alert').filter({ hasText: 'overrides: teacher.checkpoint' });
    await overrides.waitFor();
    expect(await page.getByRole('button', { name: 'Start' }).isDisabled()).toBe(true);
    // a click on the disabled Start starts nothing: had its handler run, it would have shown "starting" (its title
    // names the thread calibration) in the same render; two animation frames later that render has been painted
    await page.getByRole('button', { name: 'Start' }).click({ force: true });
    await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
    expect(await page.getByTestId('run-status').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Start' }).getAttribute('title')).toBeNull();

    const js = await openTrain('#train?preset=smoke&set=teacher.checkpoint=javascript:alert(1)');
    await js.getByRole('alert').filter({ hasText: 'not a URL or a scheme (javascript:)' }).waitFor();
    expect(otherHits).toEqual([]);
    expect(offOrigin()).toEqual([]);
    await page.close();
    await js.close();
  });

  it('runs a normal linked smoke run with only same-origin requests, its worker’s included', async () => {
    const page = await openTrain('#train?preset=smoke&backend=wasm&seed=1');
    await page.getByRole('button', { name: 'Start' }).click();
    const status = page.getByTestId('run-status');
    await expect.poll(() => status.textContent(), { timeout: 240_000, interval: 500 }).toMatch(/completed|failed/);
    expect(await status.textContent()).toBe('completed');
    // the worker fetched its wasm binaries from the app itself: they are among the recorded requests
    expect(requests.some((u) => u.endsWith('.wasm'))).toBe(true);
    expect(offOrigin()).toEqual([]);
    expect(otherHits).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 300_000);

  it('blocks a cross-origin fetch by the Content-Security-Policy, in the page and in the worker script’s header', async () => {
    const page = await openTrain('#train');
    const outcome = await page.evaluate(
      (url) =>
        fetch(url).then(
          (r) => `answered ${r.status}`,
          (e: unknown) => `refused: ${String(e)}`,
        ),
      `${otherUrl}/probe`,
    );
    expect(outcome).toMatch(/^refused/);
    const header = await page.evaluate(async () => {
      const r = await fetch('/src/app/worker/trainingWorker.ts?worker_file&type=module');
      return r.headers.get('content-security-policy');
    });
    expect(header).toContain("connect-src 'self'");
    expect(otherHits).toEqual([]);
    await page.close();
  });
});
