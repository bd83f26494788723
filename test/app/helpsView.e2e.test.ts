// The "where it helps" view in a real Chromium on the dev server: the heatmap draws one cell per environment × task
// world × misleading fraction the shipped file holds (a row per environment and world), coloured by sign only where the interval excludes 0, says the map is
// sparse, and a click on a cell opens its details (mean ± interval, source page, per-seed values, the queue button).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACROSS_WORLDS, cellKey, cellSign, helpsMapSchema } from '../../src/core/experiment/helpsMap';
import { launchChromium } from '../support/chromium';
import { ROOT, startAppServer, type AppServer } from './appServer';

const shipped = helpsMapSchema.parse(
  JSON.parse(readFileSync(join(ROOT, 'public/outcomes/where-it-helps.json'), 'utf8')),
);

describe('the where-it-helps view in a real browser', () => {
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

  it('draws the shipped cells with their signs and opens a cell’s details on a click', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}#helps`);
    const cells = page.getByTestId('helps-cell');
    // the dev server builds the page on its first load: under load that alone can take a minute
    await cells.first().waitFor({ timeout: 180_000 });
    const drawn = await cells.evaluateAll((es) =>
      es.map((e) => [e.getAttribute('data-cell'), e.getAttribute('data-sign')]),
    );
    expect(drawn.sort()).toEqual(shipped.cells.map((c) => [cellKey(c), cellSign(c)]).sort());
    // the held-out result as the pages print it: shell a null, shop measurably lower
    expect(Object.fromEntries(drawn)).toMatchObject({
      'shell#1@0.375': 'null',
      'house#1@0.2': 'null',
      'shop#1@0.2': 'lower',
    });
    expect(await page.getByTestId('helps-sparse').textContent()).toContain('The map is sparse');
    // a row per environment and task world; an environment measured in several worlds names each
    const rows = await page.locator('[data-testid="helps-map"] tbody th').allTextContents();
    const worlds = new Map<string, Set<number>>();
    for (const c of shipped.cells)
      if (c.world !== ACROSS_WORLDS) worlds.set(c.env, (worlds.get(c.env) ?? new Set()).add(c.world));
    const pooledEnvs = new Set(shipped.cells.filter((c) => c.world === ACROSS_WORLDS).map((c) => c.env));
    const expected = [...worlds].flatMap(([env, ws]) => [
      ...[...ws].map((w) => (ws.size > 1 ? `${env}, world ${w}` : env)),
      ...(pooledEnvs.has(env) ? [`${env}, over worlds`] : []),
    ]);
    expect(rows.sort()).toEqual(expected.sort());
    expect(rows).toEqual(expect.arrayContaining(['shell, world 2', 'shell, over worlds']));

    await page.locator('[data-cell="shop#1@0.2"]').click();
    const detail = page.getByTestId('helps-detail-text');
    await detail.waitFor({ timeout: 30_000 });
    expect(await detail.textContent()).toContain('−4.6 ± 3.9 (n = 10; RetireOPD measurably lower)');
    expect(await detail.textContent()).toContain('docs/outcomes/protocol-shop-reporting.md');
    expect(await page.getByTestId('helps-no-runs').isVisible()).toBe(true);
    expect(await page.getByTestId('helps-queue').isEnabled()).toBe(true);
    expect(await page.locator('[data-cell="shop#1@0.2"]').getAttribute('aria-pressed')).toBe('true');

    // the row over worlds: n counts worlds, the detail lists each world's mean, and nothing to queue there
    const pooled = shipped.cells.find((c) => c.world === ACROSS_WORLDS)!;
    const pooledCell = page.locator(`[data-cell="${cellKey(pooled)}"]`);
    expect(await pooledCell.textContent()).toContain(`n = ${pooled.n} worlds`);
    await pooledCell.click();
    await page.getByTestId('helps-pooled').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('helps-detail-text').textContent()).toContain('t-interval over worlds');
    expect(await page.getByTestId('helps-queue').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 300_000);
});
