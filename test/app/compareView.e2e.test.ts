// The compare view's exports in a real Chromium, over two smoke runs that differ only in the schedule (adaptive
// retires at step 10, never does not): the chart's SVG reads on its own (title, axis labels, a legend entry per arm
// and for the retirement markers), the CSV has numeric columns (mean, std, n, lo, hi, one trigger column per seed),
// the Markdown is comparison.md as the sweep CLI writes it, and the two arms — named RetireOPD and OPD throughout,
// identical until the retirement — are drawn distinguishable with a note.
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium';
import { openTrainPage, startAppServer, type AppServer } from './appServer';

describe('the compare view’s exports in a real browser', { shuffle: false }, () => {
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

  async function download(button: string): Promise<string> {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: button }).click(),
    ]);
    return readFileSync((await file.path())!, 'utf8');
  }

  it('trains two smoke runs that differ only in the schedule and compares them', async () => {
    const status = () => page.getByTestId('run-status').textContent();
    for (const overrides of ['student.schedule=never', '']) {
      await page.getByLabel('overrides', { exact: true }).fill(overrides);
      await page.getByTestId('run-start').click();
      await expect.poll(status, { timeout: 60_000 }).toMatch(/starting|running/);
      await expect.poll(status, { timeout: 180_000, interval: 250 }).toBe('completed');
    }
    await page.getByRole('button', { name: 'compare all runs' }).click();
    await page.getByTestId('comparison-table').waitFor();
  }, 400_000);

  it('exports the chart as an SVG with its title, axis labels, both arms and the retirement marker in the legend', async () => {
    const svg = await download('chart as SVG');
    expect(svg).toContain('width="960" height="540"');
    const texts = (cls: string) =>
      [...svg.matchAll(new RegExp(`<text[^>]*class="${cls}"[^>]*>([^<]*)</text>`, 'g'))].map((m) => m[1]);
    expect(texts('figure-title')).toEqual(['Rollout success, smoke, seed 0']);
    expect(texts('axis-label')).toEqual(['student step', 'Rollout success']);
    expect(texts('legend-entry')).toEqual([
      'OPD throughout',
      'RetireOPD',
      'retirement (dashed, in the series’ colour)',
    ]);
    // the retirement of the adaptive arm at step 10, as a marker
    expect(svg).toContain('<title>retirement at step 10</title>');
  });

  it('draws the arms distinguishable: the later one dashed, with a note on where they part', async () => {
    // the smoke preset succeeds on no task, so the success rates of both arms are 0 throughout: identical
    const note = page.getByTestId('compare-identical');
    await expect.poll(() => note.textContent()).toBe('RetireOPD is identical to OPD throughout (drawn dashed)');
    // the entropy of the sampled tokens parts after the teacher retires (step 10): OPD stops for one arm only
    await page.getByTestId('compare-metric').selectOption('actor/entropy');
    await expect.poll(() => note.textContent()).toMatch(/until step \d+ \(drawn dashed\)$/);
    const text = (await note.textContent()) ?? '';
    expect(text).toMatch(/^RetireOPD is identical to OPD throughout until step \d+/);
    expect(Number(/until step (\d+)/.exec(text)![1])).toBeGreaterThanOrEqual(10);
    const svg = await download('chart as SVG');
    expect(svg).toContain(`class="figure-note">${text}</text>`);
    expect(svg).toMatch(/stroke-dasharray="7 5"/);
  });

  it('exports the table as CSV in numeric columns, one trigger column per seed', async () => {
    const csv = (await download('table as CSV')).split(/\r?\n/).map((l) => l.split(','));
    expect(csv[0]).toEqual([
      'student.schedule',
      'n',
      'test_success_mean',
      'test_success_std',
      'test_success_ci95_lo',
      'test_success_ci95_hi',
      'steps_to_target_seed0',
      'trigger_step_seed0',
      'teacher_forwards_saved_mean',
      'wall_s_mean',
    ]);
    expect(csv.slice(1).map((r) => [r[0], r[1], r[4], r[5], r[7]])).toEqual([
      ['never', '1', '', '', ''],
      ['adaptive', '1', '', '', '10'],
    ]);
    for (const r of csv.slice(1)) {
      const mean = Number(r[2]);
      expect(Number.isFinite(mean) && mean >= 0 && mean <= 1, r.join(',')).toBe(true);
      expect(Number(r[3])).toBe(0);
      expect(Number(r[9])).toBeGreaterThan(0);
    }
  });

  it('exports the table as Markdown exactly as the sweep CLI writes comparison.md', async () => {
    const md = await download('table as Markdown');
    const table = await page.getByTestId('comparison-markdown').textContent();
    expect(md.startsWith('# Sweep smoke\n\n')).toBe(true);
    expect(md.endsWith(`\n\n${table}\n`)).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
