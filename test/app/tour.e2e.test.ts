// The guided tour on the shipped retire-shell recording, in a real Chromium at 1280×720 and 1920×1080: the
// retirement stop brings the inspector's red row into view with every column readable, and the what-if stop opens
// the Gate replay on the recording's own log with the recording's own gate settings (read from its config.json).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { openTrainPage, ROOT, startAppServer, type AppServer } from './appServer';
import { TOUR } from '../../src/app/teaching/tour';

const SIZES = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
];
const RECORDING = join(ROOT, 'public/demo/retire-shell');
const config = JSON.parse(readFileSync(join(RECORDING, 'config.json'), 'utf8')) as {
  student: { gate: { windowSize: number; alignmentThreshold: number; competenceThreshold: number } };
};
const summary = JSON.parse(readFileSync(join(RECORDING, 'summary.json'), 'utf8')) as {
  teacherPerformance: number;
  gate: { triggerStep: number; teacherForwardSkipped: number };
};
const RETIREMENT = TOUR.findIndex((s) => s.title.endsWith('Retirement'));
const WHAT_IF = TOUR.findIndex((s) => s.title.endsWith('What if?'));

describe('the guided tour on the recording, in a real browser', { shuffle: false }, () => {
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

  /** A fresh page in presentation mode with the tour at stop `index` (0-based), on the recording. */
  async function tourAt(size: { width: number; height: number }, index: number): Promise<Page> {
    const page = await openTrainPage(browser, server, '#train', pageErrors, size);
    await page.getByRole('button', { name: 'Present' }).click();
    await page.getByRole('heading', { name: 'Train', level: 2 }).click();
    await page.keyboard.press('t');
    const card = page.getByTestId('tour-card');
    await card.waitFor();
    for (let i = 1; i <= index; i++) {
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => card.textContent(), { timeout: 30_000 }).toContain(`${i + 1} / ${TOUR.length}`);
    }
    return page;
  }

  for (const size of SIZES) {
    it(
      `shows the red row it names at the retirement stop, every column in view, at ${size.width}×${size.height}`,
      { timeout: 300_000 },
      async () => {
        const page = await tourAt(size, RETIREMENT);
        const row = page.locator('.gate-inspector [data-testid="gate-window-row"][data-retired="true"]');
        await row.waitFor({ timeout: 60_000 });
        await expect
          .poll(() => page.getByTestId('tour-text').textContent(), { timeout: 30_000 })
          .toContain(`retired the teacher at step ${summary.gate.triggerStep} (the red row)`);
        await expect
          .poll(() => row.getAttribute('data-step'), { timeout: 30_000 })
          .toBe(String(summary.gate.triggerStep));
        // the row is inside the window and inside the inspector's scrolled box, once the tour has moved there
        const inView = () =>
          row.evaluate((tr) => {
            const r = tr.getBoundingClientRect();
            const box = tr.closest('.table-wrap')!.getBoundingClientRect();
            return r.top >= Math.max(0, box.top) && r.bottom <= Math.min(window.innerHeight, box.bottom);
          });
        await expect.poll(inView, { timeout: 30_000 }).toBe(true);
        // every column fits the inspector: no sideways scroll inside it, the decision column's cells inside its box
        const fit = await row.evaluate((tr) => {
          const wrap = tr.closest('.table-wrap') as HTMLElement;
          const last = tr.lastElementChild!.getBoundingClientRect();
          return {
            scrolls: wrap.scrollWidth > wrap.clientWidth,
            decisionInside: last.right <= wrap.getBoundingClientRect().right + 0.5,
            decision: tr.lastElementChild!.textContent,
          };
        });
        expect(fit).toEqual({ scrolls: false, decisionInside: true, decision: 'RETIRE' });
        // and the tour card does not cover it
        const [card, r] = [await page.getByTestId('tour-card').boundingBox(), await row.boundingBox()];
        expect(card && r && (card.x >= r.x + r.width || card.x + card.width <= r.x)).toBe(true);
        await page.close();
      },
    );

    it(
      `opens the what-if on the recording’s own log with its own gate settings at ${size.width}×${size.height}`,
      { timeout: 300_000 },
      async () => {
        const page = await tourAt(size, WHAT_IF);
        await expect.poll(() => page.evaluate(() => window.location.hash), { timeout: 30_000 }).toBe('#replay');
        const trigger = page.getByTestId('summary-trigger-step');
        await expect.poll(() => trigger.textContent(), { timeout: 60_000 }).toBe(String(summary.gate.triggerStep));
        expect(await page.getByTestId('summary-saved').textContent()).toBe(String(summary.gate.teacherForwardSkipped));
        const g = config.student.gate;
        expect(await page.getByLabel('W (window)').inputValue()).toBe(String(g.windowSize));
        expect(await page.getByLabel('γ (competence threshold)').inputValue()).toBe(String(g.competenceThreshold));
        expect(await page.getByLabel('δ (alignment threshold)').inputValue()).toBe(String(g.alignmentThreshold));
        expect(Number(await page.getByLabel('S_T', { exact: false }).inputValue())).toBe(summary.teacherPerformance);
        // the stop's target, the what-if sliders, is there and outlined
        await expect.poll(() => page.locator('.what-if.tour-target').count(), { timeout: 30_000 }).toBe(1);
        expect(await page.getByTestId('tour-wait').count()).toBe(0);
        // and stays outlined when the view rewrites the target's classes (as a remounted panel arrives without them)
        await page.evaluate(() => document.querySelector('.what-if')!.classList.remove('tour-target'));
        await expect.poll(() => page.locator('.what-if.tour-target').count(), { timeout: 10_000 }).toBe(1);
        await page.close();
      },
    );
  }

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
