// The charts as a teacher, a researcher and an engineer read them, in a real Chromium at 1280×720 and 1920×1080:
// each chart's SVG has an accessible name and a table of its values; a click pins the values under the pointer; a
// drag zooms every chart of the view over the same steps and a reset undoes it; the Train view's smoothing slider
// draws the raw curve faint behind the smoothed one and its log-scale toggle takes the y axis to a log scale; the
// dark theme follows prefers-color-scheme, chart text included; Present mode draws chart text at ≥ 16 px; and axe
// finds no violation in any view (Overview, Train with its compare section, Gate replay, Method, Where it helps) in
// either theme at either size. All on the shipped recording: nothing trains.
import { createRequire } from 'node:module';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startAppServer, type AppServer } from './appServer';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
];
const VIEWS = ['', 'train', 'replay', 'method', 'helps'];
/** generous: a loaded 2-core machine compiles the dev build on first load */
const LONG = 120_000;

/** WCAG relative luminance of a computed `rgb(r, g, b)` colour. */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/[\d.]+/g) ?? ['0', '0', '0']).slice(0, 3).map((c) => {
    const v = Number(c) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

describe('charts as researchers read them, in a real browser', { shuffle: false }, () => {
  let server: AppServer;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.setViewportSize(SIZES[0]!);
    await page.goto(server.url, { timeout: LONG });
  }, 3 * LONG);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const overview = () => page.getByTestId('overview-chart');
  /** the Overview chart once the three recorded arms have played to their end (its table has every step) */
  async function overviewPlayed() {
    await page.evaluate(() => (window.location.hash = ''));
    await overview().locator('.recharts-line-curve').nth(2).waitFor({ timeout: LONG });
    await expect
      .poll(() => page.getByTestId('overview-sentence').textContent(), { timeout: LONG })
      .not.toMatch(/Loading/);
  }

  for (const size of SIZES) {
    it(
      `names the Overview chart for screen readers and tables its values at ${size.width}×${size.height}`,
      async () => {
        await page.setViewportSize(size);
        await overviewPlayed();
        const named = page.getByRole('application', { name: /validation success of the skill-free student/ });
        await expect.poll(() => named.count(), { timeout: LONG }).toBeGreaterThan(0);
        await overview().getByText('values as a table').click();
        const table = overview().locator('.chart-table table');
        await table.waitFor();
        expect(await table.locator('thead th').allTextContents()).toEqual([
          'student step',
          'RetireOPD',
          'OPD throughout',
          'GRPO',
        ]);
        expect(await table.locator('tbody tr').count()).toBeGreaterThan(5);
        await overview().getByText('values as a table').click();
      },
      3 * LONG,
    );

    it(
      `pins the values under the pointer on a click, and zooms by a drag with a reset, at ${size.width}×${size.height}`,
      async () => {
        await page.setViewportSize(size);
        await overviewPlayed();
        const svg = overview().locator('svg.recharts-surface').first();
        const box = (await svg.boundingBox())!;
        const y = box.y + box.height / 2;
        await page.mouse.move(box.x + box.width * 0.5, y);
        await page.mouse.down();
        await page.mouse.up();
        const readout = overview().getByTestId('chart-readout');
        await expect.poll(() => readout.getAttribute('data-pinned')).toBe('true');
        const pinned = await readout.textContent();
        expect(pinned).toMatch(/student step \d+ · RetireOPD [\d.]+ · OPD throughout [\d.]+ · GRPO [\d.]+/);
        await page.mouse.move(box.x + box.width * 0.8, y);
        expect(await readout.textContent()).toBe(pinned);
        // a second click unpins
        await page.mouse.down();
        await page.mouse.up();
        await expect.poll(() => readout.getAttribute('data-pinned')).toBe('false');

        await page.mouse.move(box.x + box.width * 0.3, y);
        await page.mouse.down();
        await page.mouse.move(box.x + box.width * 0.6, y, { steps: 8 });
        await page.mouse.up();
        await expect.poll(() => overview().getAttribute('data-zoomed')).toBe('true');
        await expect
          .poll(() => overview().locator('.chart-note').first().textContent())
          .toMatch(/Zoomed to student step/);
        await overview().getByRole('button', { name: 'reset zoom' }).click();
        await expect.poll(() => overview().getAttribute('data-zoomed')).toBe('false');
      },
      3 * LONG,
    );
  }

  it(
    'smooths the Train view charts with the raw curve faint behind, and draws them on a log scale',
    async () => {
      await overviewPlayed();
      await page.getByTestId('overview-play').click();
      // the recording opens paused at its start: scrub to its last frame
      const scrubber = page.getByTestId('playback-scrubber');
      await scrubber.waitFor({ timeout: LONG });
      await scrubber.fill((await scrubber.getAttribute('max')) ?? '0');
      const controls = page.getByRole('group', { name: 'training charts: smoothing, scale and zoom' });
      const success = page.getByTestId('train-success');
      await success.locator('.recharts-line-curve').first().waitFor({ timeout: LONG });
      const curves = () => success.locator('.recharts-line-curve').count();
      const before = await curves();
      await controls.getByLabel('smoothing', { exact: true }).fill('0.6');
      // every line gains its smoothed twin; the raw one stays, faint
      await expect.poll(curves, { timeout: LONG }).toBe(2 * before);
      expect(await success.locator('.recharts-line-curve[stroke-opacity="0.3"]').count()).toBe(before);
      await controls.getByLabel('log-scale y').check();
      await expect.poll(() => success.getAttribute('data-log-y')).toBe('true');
      await expect.poll(() => page.getByTestId('train-entropy').getAttribute('data-log-y')).toBe('true');
      await controls.getByLabel('log-scale y').uncheck();
      await controls.getByLabel('smoothing', { exact: true }).fill('0');
    },
    3 * LONG,
  );

  it(
    'follows a dark colour scheme: a dark page, pale chart text, both passing contrast',
    async () => {
      await overviewPlayed();
      const colours = () =>
        page.evaluate(() => ({
          page:
            getComputedStyle(document.body).backgroundColor ||
            getComputedStyle(document.documentElement).backgroundColor,
          root: getComputedStyle(document.documentElement).backgroundColor,
          tick: getComputedStyle(
            document.querySelector('[data-testid="overview-chart"] .recharts-cartesian-axis-tick-value')!,
          ).fill,
        }));
      await page.emulateMedia({ colorScheme: 'dark' });
      const dark = await colours();
      expect(luminance(dark.root)).toBeLessThan(0.05);
      expect((luminance(dark.tick) + 0.05) / (luminance(dark.root) + 0.05)).toBeGreaterThanOrEqual(4.5);
      // every drawn line, on the Overview and on Train (the recording's playback), at least 3:1 against the page
      // (WCAG's contrast for graphics): no light-theme ink left on the dark page
      const lineContrasts = () =>
        page.evaluate(() =>
          [...document.querySelectorAll('.recharts-line-curve')].map((p) => ({
            stroke: getComputedStyle(p).stroke,
            opacity: Number(getComputedStyle(p).strokeOpacity),
          })),
        );
      const strokes = [...(await lineContrasts())];
      await page.evaluate(() => (window.location.hash = 'train'));
      await page.getByTestId('train-success').locator('.recharts-line-curve').first().waitFor({ timeout: LONG });
      strokes.push(...(await lineContrasts()));
      await page.evaluate(() => (window.location.hash = ''));
      const solid = strokes.filter((l) => l.opacity >= 0.99 && l.stroke.startsWith('rgb'));
      expect(solid.length).toBeGreaterThan(3);
      const low = solid.filter((l) => (luminance(l.stroke) + 0.05) / (luminance(dark.root) + 0.05) < 3);
      expect(low).toEqual([]);
      await page.emulateMedia({ colorScheme: 'light' });
      const light = await colours();
      expect(luminance(light.root)).toBeGreaterThan(0.9);
      expect((luminance(light.root) + 0.05) / (luminance(light.tick) + 0.05)).toBeGreaterThanOrEqual(4.5);
    },
    3 * LONG,
  );

  it(
    'draws chart text at 16 px or more in Present mode at 1280×720',
    async () => {
      await page.setViewportSize(SIZES[0]!);
      await overviewPlayed();
      await page.getByRole('button', { name: 'Present' }).click();
      const sizes = await page.evaluate(() =>
        [...document.querySelectorAll('[data-testid="overview-chart"] svg text')].map((t) =>
          parseFloat(getComputedStyle(t).fontSize),
        ),
      );
      expect(sizes.length).toBeGreaterThan(3);
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(16);
      await page.getByRole('button', { name: 'Leave presentation' }).click();
    },
    3 * LONG,
  );

  for (const size of SIZES)
    for (const scheme of ['light', 'dark'] as const)
      it(
        `finds no accessibility violation in any view, ${scheme}, at ${size.width}×${size.height}`,
        async () => {
          await page.setViewportSize(size);
          await page.emulateMedia({ colorScheme: scheme });
          if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
          const found: string[] = [];
          for (const view of VIEWS) {
            await page.evaluate((v) => (window.location.hash = v), view);
            if (view === '') await overview().locator('.recharts-line-curve').nth(2).waitFor({ timeout: LONG });
            if (view === 'train') await page.getByTestId('train-success').waitFor({ timeout: LONG });
            await page.locator('main, .shell').first().waitFor({ timeout: LONG });
            const violations = await page.evaluate(async () => {
              const axe = (
                window as unknown as {
                  axe: { run(c: Document): Promise<{ violations: { id: string; nodes: { target: unknown[] }[] }[] }> };
                }
              ).axe;
              const r = await axe.run(document);
              return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
            });
            found.push(...violations.map((v) => `#${view} ${v}`));
          }
          await page.emulateMedia({ colorScheme: 'light' });
          expect(found).toEqual([]);
        },
        4 * LONG,
      );

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
