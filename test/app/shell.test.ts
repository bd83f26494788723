import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import type { BrowserContext } from 'playwright-core';
import { launchChromium } from '../support/chromium';

describe('the app shell in a real browser', () => {
  let server: ViteDevServer;
  let browser: BrowserContext;
  let url: string;

  beforeAll(async () => {
    server = await createServer({ root: process.cwd(), logLevel: 'error', server: { port: 0, host: '127.0.0.1' } });
    await server.listen();
    const address = server.httpServer?.address();
    if (!address || typeof address === 'string') throw new Error('vite dev server has no port');
    url = `http://127.0.0.1:${address.port}/`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders the lab heading and the three methods without fetching anything off this machine', async () => {
    const page = await browser.newPage();
    const offHost: string[] = [];
    const errors: string[] = [];
    await page.route('**/*', (route) => {
      const target = new URL(route.request().url());
      if (target.hostname !== '127.0.0.1' && target.protocol !== 'data:') {
        offHost.push(target.href);
        return route.abort();
      }
      return route.continue();
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    await page.getByRole('heading', { name: 'RetireLab', level: 1 }).waitFor({ timeout: 30_000 });
    const methodHeadings = await page.getByRole('heading', { level: 2 }).allTextContents();
    expect(methodHeadings).toEqual(['GRPO', 'RetireOPD', 'ActObs']);
    expect(offHost).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
