// A run seen live in a real Chromium (smoke preset on wasm, a validation of 256 tasks after every student step, so
// that most of a student step is its validation): the live episode strip shows one episode of the current rollout —
// task, commands, observations, reward — updating as the run goes, and the student alone once the teacher retired;
// a pause holds inside the validation — within the step, not at its end — the page says so, Step finishes exactly
// that step and holds at its boundary, and the run then completes.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { openTrainPage, startAppServer, type AppServer } from './appServer';

const LONG_VALIDATION = ['student.validationEvery=1', 'student.validationTasks=256'];

describe('a run seen live in a real browser', { shuffle: false }, () => {
  let server: AppServer;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
    page = await openTrainPage(browser, server, '#train?preset=smoke&backend=wasm', pageErrors);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('holds inside the validation of a student step, and Step finishes that step', async () => {
    await page.getByLabel('overrides', { exact: true }).fill(LONG_VALIDATION.join('\n'));
    // every episode the strip shows, as "stage step teacher-active", in order
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { liveEpisodes: string[] }).liveEpisodes = seen;
      new MutationObserver(() => {
        const el = document.querySelector<HTMLElement>('[data-testid="live-episode"]');
        if (!el) return;
        const v = `${el.dataset.stage} ${el.dataset.step} ${el.dataset.teacherActive}`;
        if (seen.at(-1) !== v) seen.push(v);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    await page.getByTestId('run-start').click();
    const status = page.getByTestId('run-status');
    const position = page.getByTestId('step-position');
    await expect
      .poll(() => page.getByTestId('run-progress').textContent(), { timeout: 180_000, interval: 100 })
      .toMatch(/^student \d+\//);
    // a pause lands inside a validation most of the time here; at a step boundary otherwise — then try again
    let heldIn: number | null = null;
    for (let attempt = 0; attempt < 6 && heldIn === null; attempt++) {
      await page.getByRole('button', { name: 'Pause' }).click();
      await expect.poll(() => status.textContent(), { timeout: 60_000 }).toBe('paused');
      const text = (await position.textContent()) ?? '';
      // held after student step k, inside step k + 1's validation
      const m = /^held in a validation after student step (\d+) \(Step finishes it\)$/.exec(text);
      if (m) heldIn = Number(m[1]) + 1;
      else {
        expect(text).toMatch(/^held after student step \d+$/);
        await page.getByRole('button', { name: 'Resume' }).click();
        await expect.poll(() => status.textContent(), { timeout: 60_000 }).toBe('running');
      }
    }
    expect(heldIn, 'no pause of six held inside a validation').not.toBeNull();
    // the run log says where it holds
    expect(await page.locator('.run-log').textContent()).toContain(
      `paused in a validation after student step ${heldIn! - 1}`,
    );
    // Step: the rest of that validation, then held at the boundary after that very step
    await page.getByTestId('step-button').click();
    await expect
      .poll(() => position.textContent(), { timeout: 120_000, interval: 100 })
      .toBe(`held after student step ${heldIn}`);
    expect(await status.textContent()).toBe('paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => status.textContent(), { timeout: 300_000, interval: 500 }).toBe('completed');
    expect(pageErrors).toEqual([]);
  });

  it('showed a live episode strip that followed the rollouts, the student alone after the retirement', async () => {
    const seen = await page.evaluate(() => (window as unknown as { liveEpisodes: string[] }).liveEpisodes);
    const parsed = seen.map((v) => {
      const [stage, step, active] = v.split(' ');
      return { stage, step: Number(step), active: active === 'true' };
    });
    // several updates (the worker sends at most one a second), in the order of the run
    expect(parsed.length, seen.join(' | ')).toBeGreaterThanOrEqual(3);
    const order = (e: { stage?: string; step: number }) => (e.stage === 'teacher' ? 0 : 1000) + e.step;
    for (let i = 1; i < parsed.length; i++) expect(order(parsed[i]!)).toBeGreaterThan(order(parsed[i - 1]!));
    // the smoke preset retires the teacher at step 10: guided up to it, alone after
    for (const e of parsed.filter((x) => x.stage === 'student'))
      expect(e.active, `student ${e.step}`).toBe(e.step <= 10);
    expect(parsed.some((e) => e.stage === 'student' && e.step > 10)).toBe(true);
    const strip = page.getByTestId('live-episode');
    expect(await strip.textContent()).toContain('the student alone: the teacher has retired');
    expect(await strip.locator('.live-command').first().textContent()).toMatch(/^\$ \S/);
    expect(await strip.textContent()).toMatch(/reward -?\d\.\d\d · (success|failure)/);
  });
});
