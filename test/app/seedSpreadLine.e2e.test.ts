// The Overview places the recorded lesson's seed among the reporting seeds, in a real Chromium on the dev server:
// beside the story it shows this seed's paired difference and the ten seeds' mean ± interval, and both are the
// numbers of the shipped public/demo/seed-spread.json (generated from the held-out page), worded as a null.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSpreadSchema } from '../../src/core/experiment/seedSpread';
import { launchChromium } from '../support/chromium';
import { ROOT, startAppServer, type AppServer } from './appServer';

const shipped = seedSpreadSchema.parse(JSON.parse(readFileSync(join(ROOT, 'public/demo/seed-spread.json'), 'utf8')));

describe('the Overview’s seed spread in a real browser', () => {
  let server: AppServer;
  let browser: BrowserContext;

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows this seed and the ten seeds beside the story, equal to the shipped file', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url);
    const line = page.getByTestId('overview-seed-spread');
    // the dev server builds the page on its first load: under load that alone can take a minute
    await line.waitFor({ timeout: 180_000 });
    const text = (await line.textContent()) ?? '';
    const fmt = (x: number) => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(1)}`;
    expect(text).toContain(`this seed: ${fmt(shipped.thisSeed)}`);
    expect(text).toContain(`ten seeds: ${fmt(shipped.mean)} ± ${shipped.halfWidth.toFixed(1)}`);
    expect(text).toContain('(95 % interval; no measurable difference)');
    // the values the file holds are the shell page's: the lesson's seed is 1000, RetireOPD's best of the ten
    expect([shipped.seed, shipped.thisSeed, shipped.mean, shipped.halfWidth]).toEqual([1000, 16.7, 3.6, 11.6]);
    expect(errors).toEqual([]);
  }, 300_000);
});
