// Teaching mode in the gate replay view, in a real Chromium: the gate inspector's rows (test id gate-window-row)
// equal the CLI replay's evaluation lines (cli/replay.ts's main, called in-process: count, steps, P, C and the
// retiring row); the what-if's trigger step equals the CLI run with the slider's value; an explain button opens a
// KaTeX formula and links to the method's section, with nothing fetched from outside the app's own server.
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, nodeIo } from '../../cli/replay';
import { launchChromium } from '../support/chromium';
import { ROOT, startAppServer, type AppServer } from './appServer';

const FIXTURES = join(ROOT, 'test/fixtures/replay');

interface CliLine {
  type: string;
  step: number;
  window_index: number;
  alignment_progress: number | null;
  competence_ratio: number | null;
  retired: boolean;
  trigger_step?: number | null;
  teacher_forward_steps_saved?: number;
}

/** Every line the replay CLI prints for these files and flags (its main, in-process). */
async function cli(files: string[], args: string[]): Promise<CliLine[]> {
  let stdout = '';
  let stderr = '';
  const status = await main([...files.map((f) => join(FIXTURES, f)), ...args], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    readLog: nodeIo.readLog,
  });
  expect(status, stderr).toBe(0);
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as CliLine);
}

const CASES = [
  {
    name: 'the verl log (retires at 35)',
    files: ['verl_retire_opd.jsonl'],
    fields: { S_T: '0.8', 'W (window)': '5', 'δ (alignment threshold)': '0' },
    args: ['--teacher-performance', '0.8'],
  },
  {
    name: 'the TensorBoard CSV pair with W = 4, δ = 0.05',
    files: ['run-grpo_opd-tag-skillsd_teacher_student_gap_mean.csv', 'run-grpo_opd-tag-val_success_rate.csv'],
    fields: { S_T: '0.75', 'W (window)': '4', 'δ (alignment threshold)': '0.05' },
    args: ['--teacher-performance', '0.75', '--window', '4', '--alignment-threshold', '0.05'],
  },
];

// One scenario in order (never shuffled): the explain buttons are those of the inspector a replay above filled.
describe('teaching mode in the replay view, in a real browser', { shuffle: false }, () => {
  let server: AppServer;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const foreignRequests: string[] = [];

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('request', (r) => {
      // blob: URLs of the page's own origin are made in the page (the wasm runtime's thread workers), never fetched
      const own = [server.url, `blob:${server.url}`, 'data:'];
      if (!own.some((prefix) => r.url().startsWith(prefix))) foreignRequests.push(r.url());
    });
    await page.goto(`${server.url}#replay`, { timeout: 120_000 });
    await page.getByRole('heading', { name: 'Gate replay', level: 2 }).waitFor({ timeout: 60_000 });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function replay(c: (typeof CASES)[number]): Promise<void> {
    for (const [label, value] of Object.entries(c.fields)) await page.getByLabel(label, { exact: false }).fill(value);
    await page.getByLabel('log files').setInputFiles(c.files.map((f) => join(FIXTURES, f)));
    await page.getByRole('button', { name: 'Run replay' }).click();
    await page.getByTestId('summary-trigger-step').waitFor();
  }

  for (const c of CASES) {
    it(`shows one inspector row per CLI evaluation line for ${c.name}`, async () => {
      const lines = await cli(c.files, c.args);
      const evaluations = lines.filter((l) => l.type === 'evaluation');
      const summary = lines[lines.length - 1] as CliLine;
      await replay(c);
      const rows = page.getByTestId('gate-window-row');
      // the inspector loads with the first replay: a loaded machine takes seconds
      await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(evaluations.length);
      const seen = await rows.evaluateAll((trs) =>
        trs.map((tr) => ({
          index: Number(tr.getAttribute('data-window-index')),
          step: Number(tr.getAttribute('data-step')),
          retired: tr.getAttribute('data-retired'),
          rho: tr.getAttribute('data-rho'),
          eta: tr.getAttribute('data-eta'),
        })),
      );
      expect(seen.map((r) => r.index)).toEqual(evaluations.map((l) => l.window_index));
      expect(seen.map((r) => r.step)).toEqual(evaluations.map((l) => l.step));
      expect(seen.map((r) => (r.rho === '' ? null : Number(r.rho)))).toEqual(
        evaluations.map((l) => l.alignment_progress),
      );
      expect(seen.map((r) => (r.eta === '' ? null : Number(r.eta)))).toEqual(
        evaluations.map((l) => l.competence_ratio),
      );
      const retiring = seen.filter((r) => r.retired === 'true').map((r) => r.step);
      expect(retiring).toEqual(summary.trigger_step === null ? [] : [summary.trigger_step]);
      if (summary.trigger_step !== null) {
        const row = page.locator('[data-testid="gate-window-row"][data-retired="true"]');
        expect(await row.textContent()).toContain('RETIRE');
        // the reason, in words, is the row under it
        const reason = page.locator('[data-testid="gate-window-row"][data-retired="true"] + tr');
        expect(await reason.textContent()).toMatch(
          /^retire: gap stopped shrinking: ρ = .* ≤ δ = .* and student competent: η = .* ≥ γ = /,
        );
      }
    });
  }

  it('moves the trigger step with the what-if sliders exactly as the CLI does with the same options', async () => {
    await replay(CASES[0] as (typeof CASES)[number]);
    for (const [delta, gamma] of [
      ['0.1', '0.9'],
      ['0', '0.7'],
      ['-0.1', '0.9'],
    ] as const) {
      await page.getByLabel('δ (what-if)', { exact: true }).fill(delta);
      await page.getByLabel('γ (what-if)', { exact: true }).fill(gamma);
      const lines = await cli(CASES[0]?.files ?? [], [
        '--teacher-performance',
        '0.8',
        `--alignment-threshold=${delta}`,
        '--competence-threshold',
        gamma,
      ]);
      const summary = lines[lines.length - 1] as CliLine;
      const want = summary.trigger_step === null ? 'none' : String(summary.trigger_step);
      await expect.poll(() => page.getByTestId('whatif-trigger-step').textContent()).toBe(want);
      expect(await page.getByTestId('whatif-saved').textContent()).toBe(String(summary.teacher_forward_steps_saved));
    }
    expect(await page.getByTestId('sensitivity-strip').locator('td').count()).toBe(36);
  });

  it('explains ρ with a KaTeX formula and a link to its section of the method, fetching nothing from outside', async () => {
    await page.getByRole('button', { name: 'explain ρ — alignment progress' }).first().click();
    const panel = page.getByRole('region', { name: 'about ρ — alignment progress' });
    await panel.waitFor();
    await panel.locator('.katex').first().waitFor(); // KaTeX loads with the first panel
    expect(await panel.getByRole('link').getAttribute('href')).toBe('#method?gate-alignment-progress');
    expect(await panel.getByRole('link').textContent()).toBe('docs/METHODS.md#gate-alignment-progress');
    expect(await panel.textContent()).toContain('ρ > 0 means the gap is still shrinking');
    await page.keyboard.press('Escape');
    await expect.poll(() => panel.count()).toBe(0);
    expect(foreignRequests).toEqual([]);
  });

  it('opens the method at the linked section, inside the app', async () => {
    await page.getByRole('button', { name: 'explain η — competence ratio' }).first().click();
    await page.getByRole('region', { name: 'about η — competence ratio' }).getByRole('link').click();
    const section = page.locator('#methods-gate-competence-ratio');
    await section.waitFor();
    expect(await section.getAttribute('class')).toContain('target');
    // the formula typeset by KaTeX, its TeX source kept in the MathML annotation
    expect(await section.locator('annotation').first().textContent()).toBe(
      String.raw`\eta = \frac{S + S_{\text{prev}}}{2\,S_T}`,
    );
    expect(await section.isVisible()).toBe(true);
  });

  it('presents at 1280×720: larger type, a tour that walks the views, keyboard controls', async () => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(`${server.url}#replay`);
    await page.getByRole('button', { name: 'Present' }).click();
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).fontSize)).toBe('20px');
    await page.keyboard.press('t');
    const card = page.getByTestId('tour-card');
    await card.waitFor();
    expect(await card.textContent()).toContain('1 / 9');
    await expect.poll(() => page.evaluate(() => window.location.hash)).toBe('#train');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => card.textContent()).toContain('2 / 9');
    const box = await card.boundingBox();
    expect(box !== null && box.x >= 0 && box.y >= 0 && box.x + box.width <= 1280 && box.y + box.height <= 720).toBe(
      true,
    );
    await page.keyboard.press('Escape');
    await expect.poll(() => card.count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.classList.contains('presentation'))).toBe(false);
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
