// Play / pause / step in a real Chromium on the smoke preset (wasm): a paused run advances by exactly one training
// step per click of "Step" — across the stage changes too — and then holds; stepping through the student stage's
// validation at step 5 adds exactly one row to the live gate inspector, and at step 10 the row where the teacher
// retires (the smoke preset retires at the earliest step, 10).
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { startAppServer, type AppServer } from './appServer';

const STAGES = ['demonstrations', 'sft', 'teacher', 'student'];

// One scenario in order (never shuffled): the second test samples the run the first one left held at student step 10.
describe('the step button in a real browser', { shuffle: false }, () => {
  let server: AppServer;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.url}#train`, { timeout: 120_000 });
    await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
    await page
      .getByLabel('preset', { exact: true })
      .locator('option[value="smoke"]')
      .waitFor({ state: 'attached', timeout: 30_000 });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Where the held run is: "held after student step 4" → { stage: 'student', step: 4 }. */
  async function position(): Promise<{ stage: string; step: number }> {
    const text = (await page.getByTestId('step-position').textContent()) ?? '';
    const m = /held after (\w*) step (\d+)/.exec(text);
    if (!m) throw new Error(`not held: "${text}"`);
    return { stage: m[1] ?? '', step: Number(m[2]) };
  }

  // The inspector redraws in a task of its own (the charts' redraw queue) after the hold is reported: on a loaded
  // machine its rows arrive seconds after 'paused'.
  const INSPECTOR_WAIT = { timeout: 30_000, interval: 100 };

  it('advances a paused smoke run by exactly one step per click', async () => {
    await page.getByLabel('preset', { exact: true }).selectOption('smoke');
    await page.getByLabel('backend', { exact: true }).selectOption('wasm');
    await page.getByRole('button', { name: 'Start' }).click();
    const status = page.getByTestId('run-status');
    await expect.poll(() => status.textContent(), { timeout: 60_000, interval: 50 }).toBe('running');
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => status.textContent(), { timeout: 60_000 }).toBe('paused');
    const step = page.getByTestId('step-button');
    let at = await position();
    const rows = page.getByTestId('gate-window-row');
    for (let click = 0; click < 40 && !(at.stage === 'student' && at.step === 10); click++) {
      await step.click();
      const before = at;
      // the run reports 'running' for the step and 'paused' once held again at the next step boundary
      await expect
        .poll(
          async () =>
            (await status.textContent()) === 'paused' &&
            JSON.stringify(await position().catch(() => before)) !== JSON.stringify(before),
          { timeout: 30_000, interval: 100 },
        )
        .toBe(true);
      at = await position();
      const sameStage = at.stage === before.stage;
      expect(sameStage ? at.step : STAGES.indexOf(at.stage), `${JSON.stringify(before)} → ${JSON.stringify(at)}`).toBe(
        sameStage ? before.step + 1 : Math.max(STAGES.indexOf(before.stage) + 1, STAGES.indexOf(at.stage)),
      );
      if (!sameStage) expect(at.step, `${JSON.stringify(before)} → ${JSON.stringify(at)}`).toBe(1);
      // Held again, nothing moves on its own — checked without a timed wait: `at` is read while held, so a run that
      // went on by itself would make the next click land two or more steps past it (the assertion above), and the
      // last position must still hold after the trajectory sampling of the next test (seconds of worker work).
      if (at.stage === 'student' && at.step === 4) expect(await rows.count()).toBe(0);
      if (at.stage === 'student' && at.step === 5) {
        await expect.poll(() => rows.count(), INSPECTOR_WAIT).toBe(1);
        expect(await rows.first().getAttribute('data-step')).toBe('5');
      }
    }
    expect(at).toEqual({ stage: 'student', step: 10 });
    await expect.poll(() => rows.count(), INSPECTOR_WAIT).toBe(2);
    expect(await page.locator('[data-testid="gate-window-row"][data-retired="true"]').getAttribute('data-step')).toBe(
      '10',
    );
  });

  it('samples the held student and teacher: tokens by class, log-probs and gaps on the action tokens', async () => {
    await page.getByRole('button', { name: 'Sample trajectories' }).click();
    const episodes = page.getByTestId('probe-episode');
    await page.getByTestId('probe-result').waitFor({ timeout: 60_000 });
    await expect.poll(() => episodes.count(), INSPECTOR_WAIT).toBe(4);
    expect(await page.getByTestId('probe-error').count()).toBe(0);
    const seen = await episodes.evaluateAll((articles) =>
      articles.map((a) => ({
        policy: a.getAttribute('data-policy'),
        gap: Number(a.getAttribute('data-gap')),
        tokens: [...a.querySelectorAll('[data-testid="probe-token"]')].map((t) => ({
          cls: t.getAttribute('data-class'),
          student: t.getAttribute('data-student'),
          teacher: t.getAttribute('data-teacher'),
        })),
      })),
    );
    // tasks 0 and 1 of the validation split, the student's then the teacher's (with its skill)
    expect(seen.map((e) => e.policy)).toEqual(['student', 'student', 'teacher', 'teacher']);
    for (const e of seen) {
      const classes = new Set(e.tokens.map((t) => t.cls));
      for (const c of ['prompt', 'actionHead', 'observation']) expect(classes.has(c), c).toBe(true);
      const scored = e.tokens.filter((t) => t.student !== '' && t.teacher !== '');
      expect(scored.length).toBeGreaterThan(0);
      // log-probs only on the tokens the policy wrote, and each ≤ 0
      for (const t of e.tokens) expect(t.student !== '').toBe(t.cls === 'actionHead' || t.cls === 'actionArg');
      for (const t of scored) expect(Math.max(Number(t.student), Number(t.teacher))).toBeLessThanOrEqual(0);
      const mean = scored.reduce((acc, t) => acc + Number(t.teacher) - Number(t.student), 0) / scored.length;
      expect(e.gap).toBeCloseTo(mean, 9);
    }
    // the run is still held where it was
    expect(await page.getByTestId('run-status').textContent()).toBe('paused');
    expect(await position()).toEqual({ stage: 'student', step: 10 });
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000, interval: 500 })
      .toBe('completed');
    expect(pageErrors).toEqual([]);
  });
});
