// Presentation mode as a class sees it, in a real Chromium, with a finished smoke run in the runs table: at 1280×720
// and 1920×1080 no view scrolls sideways and no fixed element (the tour card) covers text or a control, in every
// view and at every tour stop; each stop outlines an element that exists or says what to wait for; Space starts a
// run; the tour's claims about the run are the run's own numbers; the Method view typesets its formulas with KaTeX;
// and no view’s text carries a tracker’s words ("issue" and a number).
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { openTrainPage, startAppServer, type AppServer } from './appServer';
import { measureLayout } from './pageLayout';
import { TOUR } from '../../src/app/teaching/tour';

const VIEWS = ['', 'train', 'replay', 'method'];
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
];

describe('presentation mode in a real browser', { shuffle: false }, () => {
  let server: AppServer;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
    page = await openTrainPage(browser, server, '#train', pageErrors, SIZES[0]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const status = () => page.getByTestId('run-status').textContent();

  /** The element each view renders once it is on screen (the App mounts only the view its hash names). */
  const viewShown = (view: string) =>
    ({
      '': page.getByRole('heading', { name: /^The story, recorded/ }),
      train: page.getByRole('heading', { name: 'Train', level: 2, exact: true }),
      replay: page.getByRole('heading', { name: 'Gate replay' }),
      method: page.locator('.methods-doc h2').first(),
    })[view];

  /** Open a view and wait for it to be mounted. */
  async function show(view: string): Promise<void> {
    await page.evaluate((v) => (window.location.hash = v), view);
    await viewShown(view)?.waitFor({ state: 'attached' });
  }

  /** Two animation frames: what the last hash change or key press rendered has been laid out (no wall-clock wait). */
  const painted = () =>
    page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

  it('starts a run with Space when none is going', async () => {
    await page.getByLabel('preset', { exact: true }).selectOption('smoke');
    await page.getByLabel('backend', { exact: true }).selectOption('wasm');
    await page.getByRole('button', { name: 'Present' }).click();
    // focus on the page, not in a field (keys are ignored while typing)
    await page.getByRole('heading', { name: 'Train', level: 2 }).click();
    await page.keyboard.press(' ');
    await expect.poll(status, { timeout: 60_000 }).toMatch(/starting|running|completed/);
    await expect.poll(status, { timeout: 180_000, interval: 250 }).toBe('completed');
  });

  async function layoutOf(where: string) {
    await painted();
    const report = await page.evaluate(measureLayout);
    return { where, ...report };
  }

  for (const size of SIZES) {
    it(`fits ${size.width}×${size.height} in every view: no sideways scroll, nothing fixed over content`, async () => {
      await page.setViewportSize(size);
      for (const view of VIEWS) {
        await show(view);
        if (view === 'train') await page.getByTestId('gate-window-row').first().waitFor();
        const r = await layoutOf(`#${view}`);
        expect(r, r.where).toMatchObject({ scrollWidth: r.viewportWidth, covered: [], clippedPlaceholders: [] });
      }
    });

    it(`fits ${size.width}×${size.height} at every tour stop, each outlining its target or saying what to wait for`, async () => {
      await page.setViewportSize(size);
      await page.evaluate(() => (window.location.hash = 'train'));
      await page.keyboard.press('t');
      const card = page.getByTestId('tour-card');
      await card.waitFor();
      for (let i = 0; i < TOUR.length; i++) {
        if (i > 0) await page.keyboard.press('ArrowRight');
        await expect.poll(() => card.textContent()).toContain(`${i + 1} / ${TOUR.length}`);
        await expect.poll(() => page.evaluate(() => window.location.hash)).toBe(`#${TOUR[i]!.view}`);
        // the outline moves once the stop's view has rendered: wait for it on the stop's own target, or the wait text
        const where = () =>
          page.evaluate((sel) => {
            const outlined = [...document.querySelectorAll('.tour-target')];
            const waiting = document.querySelector('[data-testid="tour-wait"]') !== null;
            if (outlined.length === 1 && outlined[0]!.matches(sel) && !waiting) return 'outlined';
            return outlined.length === 0 && waiting ? 'waiting' : `outlined ${outlined.length}, waiting ${waiting}`;
          }, TOUR[i]!.target);
        await expect.poll(where, { timeout: 10_000 }).toMatch(/^(outlined|waiting)$/);
        if ((await where()) === 'outlined') {
          // the card is beside its target, never over it
          const [a, b] = [await card.boundingBox(), await page.locator('.tour-target').boundingBox()];
          expect(a && b && (a.x >= b.x + b.width || a.x + a.width <= b.x), `stop ${i + 1}`).toBe(true);
        }
        const r = await layoutOf(`stop ${i + 1}`);
        expect(r, r.where).toMatchObject({ scrollWidth: r.viewportWidth, covered: [], clippedPlaceholders: [] });
      }
      await page.keyboard.press('t');
      await expect.poll(() => card.count()).toBe(0);
    });
  }

  it('states the run’s own numbers at the SFT stop: the cosine’s first and last measured values', async () => {
    await page.evaluate(() => (window.location.hash = 'train'));
    await page.keyboard.press('t');
    await page.keyboard.press('ArrowRight');
    const text = (await page.getByTestId('tour-text').textContent()) ?? '';
    const m = /went from ([−+]\d\.\d\d) at SFT step (\d+) to ([−+]\d\.\d\d) at step (\d+)/.exec(text);
    expect(m, text).not.toBeNull();
    // the same run's cosine chart draws those points: its stored SFT metrics are the source
    const points = (await page.evaluate(
      `import('/src/app/train/liveRun.ts').then((m) => m.runStore.getState().steps.sft
        .filter((l) => Number.isFinite(l['sft/grad_cosine'])).map((l) => ({ step: l.step, value: l['sft/grad_cosine'] })))`,
    )) as { step: number; value: number }[];
    const fmt = (x: number) => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(2)}`;
    expect(m!.slice(1)).toEqual([
      fmt(points[0]!.value),
      String(points[0]!.step),
      fmt(points[points.length - 1]!.value),
      String(points[points.length - 1]!.step),
    ]);
    await page.keyboard.press('Escape');
  });

  it('typesets the Method view’s formulas with KaTeX, as the explain panels do', async () => {
    await page.evaluate(() => (window.location.hash = 'method'));
    const doc = page.locator('.methods-doc');
    await doc.waitFor();
    await expect.poll(() => doc.locator('.katex').count()).toBeGreaterThan(5);
    // the competence ratio's formula is typeset, not left as monospace text
    const section = page.locator('#methods-gate-competence-ratio');
    expect(await section.locator('.katex').count()).toBeGreaterThan(0);
  });

  it('shows no tracker words in any view', async () => {
    for (const view of VIEWS) {
      await show(view);
      await painted();
      const text = await page.evaluate(() => document.body.innerText);
      expect(text, `#${view}`).not.toMatch(/\bissues?\s*#?\d+|#\d+\b|\btracker\b/i);
    }
    expect(pageErrors).toEqual([]);
  });
});
