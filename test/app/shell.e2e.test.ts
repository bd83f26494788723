import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { startAppServer, type AppServer } from './appServer';

describe('the app shell in a real browser', () => {
  let server: AppServer;
  let browser: BrowserContext;

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders the lab heading, the recorded story, the three methods and the views without fetching anything off this machine', async () => {
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
    await page.goto(server.url);
    await page.getByRole('heading', { name: 'RetireLab', level: 1 }).waitFor({ timeout: 30_000 });
    const methodHeadings = await page.getByRole('heading', { level: 2 }).allTextContents();
    // the recorded story first (src/app/demo/OverviewStory.tsx), then the three methods
    expect(methodHeadings).toEqual([expect.stringMatching(/^The story, recorded/), 'GRPO', 'RetireOPD', 'ActObs']);
    const views = page.getByRole('navigation', { name: 'views' }).getByRole('link');
    expect(await views.allTextContents()).toEqual(['Overview', 'Train', 'Gate replay', 'Method', 'Where it helps']);
    await views.filter({ hasText: 'Gate replay' }).click();
    await page.getByRole('heading', { name: 'Gate replay', level: 2 }).waitFor();
    expect(page.url()).toMatch(/#replay$/);
    await views.filter({ hasText: 'Train' }).click();
    await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor();
    await views.filter({ hasText: 'Overview' }).click();
    await page.getByRole('heading', { name: 'GRPO', level: 2 }).waitFor();
    expect(offHost).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
