// The gate replay view in a real Chromium: fixtures go in through the file input exactly as a user's log would,
// and the page must agree with the CLI (cli/replay.ts's main, called in-process) on the trigger step, the
// teacher forward steps saved, and — for a malformed log — the exact FILE:LINE message. A large log streams in the
// replay worker with a progress bar.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { main, nodeIo } from '../../cli/replay';
import { launchChromium } from '../support/chromium';
import { ROOT, startAppServer, type AppServer } from './appServer';

const FIXTURES = join(ROOT, 'test/fixtures/replay');

/** The replay CLI's main, in-process (file names as given, read from `cwd`): its parsed summary line, or its stderr
 *  when it refused the input. */
async function cli(
  files: string[],
  args: string[],
  cwd = ROOT,
): Promise<{ summary: Record<string, unknown> | null; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await main([...files, ...args], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    readLog: (path) => nodeIo.readLog(resolve(cwd, path)),
  });
  const last = stdout.trim().split('\n').pop() ?? '';
  return {
    summary: status === 0 ? (JSON.parse(last) as Record<string, unknown>) : null,
    stderr: stderr.trim(),
  };
}

interface Case {
  name: string;
  files: string[];
  /** settings field label → value, in the page */
  fields: Record<string, string>;
  args: string[];
}

const CASES: Case[] = [
  {
    name: 'a verl file-logger log (gate fires; the log carries its own trigger)',
    files: ['verl_retire_opd.jsonl'],
    fields: { S_T: '0.8' },
    args: ['--teacher-performance', '0.8'],
  },
  {
    name: 'two TensorBoard CSV exports joined on the step, W = 4, δ = 0.05',
    files: ['run-grpo_opd-tag-skillsd_teacher_student_gap_mean.csv', 'run-grpo_opd-tag-val_success_rate.csv'],
    fields: { S_T: '0.75', 'W (window)': '4', 'δ (alignment threshold)': '0.05' },
    args: ['--teacher-performance', '0.75', '--window', '4', '--alignment-threshold', '0.05'],
  },
  {
    name: 'a TRL trainer_state.json that never retires',
    files: ['trl_trainer_state.json'],
    fields: { S_T: '0.9' },
    args: ['--teacher-performance', '0.9'],
  },
];

describe('the gate replay view in a real browser', () => {
  let server: AppServer;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startAppServer();
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.url}#replay`);
    await page.getByRole('heading', { name: 'Gate replay', level: 2 }).waitFor({ timeout: 60_000 });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function fill(fields: Record<string, string>): Promise<void> {
    await page.getByLabel('W (window)').fill('5');
    await page.getByLabel('δ (alignment threshold)').fill('0');
    for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: false }).fill(value);
  }

  for (const c of CASES) {
    it(`shows the CLI's trigger step for ${c.name}`, async () => {
      const { summary: expected } = await cli(
        c.files.map((f) => join(FIXTURES, f)),
        c.args,
      );
      expect(expected?.type).toBe('summary');
      await fill(c.fields);
      await page.getByLabel('log files').setInputFiles(c.files.map((f) => join(FIXTURES, f)));
      await page.getByRole('button', { name: 'Run replay' }).click();
      const trigger = page.getByTestId('summary-trigger-step');
      await trigger.waitFor();
      const want = expected?.trigger_step === null ? 'none' : String(expected?.trigger_step);
      await expect.poll(() => trigger.textContent()).toBe(want);
      expect(await page.getByTestId('summary-saved').textContent()).toBe(String(expected?.teacher_forward_steps_saved));
      expect(await page.getByTestId('summary-retired').textContent()).toBe(expected?.retired ? 'yes' : 'no');
      const rows = await page.getByRole('table', { name: 'evaluations' }).locator('tbody tr').count();
      expect(rows).toBe(expected?.evaluations);
      if (expected?.agrees_with_log !== undefined) {
        expect(await page.getByTestId('summary-agreement').textContent()).toContain(
          expected.agrees_with_log ? 'agrees' : 'disagrees',
        );
      }
      expect(await page.getByTestId('replay-error').count()).toBe(0);
    });
  }

  it('shows a malformed log’s FILE:LINE error exactly as the CLI prints it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'retirelab-replay-bad-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const text = '{"step":1,"gap":-0.4}\n{"step":2,"gap":-0.3}\n{"step":3,"gap":-0.25,"val":\n';
    writeFileSync(join(dir, 'broken.jsonl'), text);
    const expected = await cli(['broken.jsonl'], ['--teacher-performance', '0.8'], dir);
    expect(expected.summary).toBeNull();
    expect(expected.stderr).toMatch(/^broken\.jsonl:3: /);
    await fill({ S_T: '0.8' });
    await page
      .getByLabel('log files')
      .setInputFiles({ name: 'broken.jsonl', mimeType: 'application/json', buffer: Buffer.from(text) });
    await page.getByRole('button', { name: 'Run replay' }).click();
    const error = page.getByTestId('replay-error');
    await error.waitFor();
    expect(await error.locator('pre').textContent()).toBe(expected.stderr);
    expect(await page.getByTestId('summary-trigger-step').count()).toBe(0);
  });

  it('names the setting at fault instead of replaying with a bad S_T', async () => {
    await page.getByLabel('log files').setInputFiles(join(FIXTURES, 'simple.jsonl'));
    await page.getByLabel('S_T', { exact: false }).fill('0');
    await page.getByRole('button', { name: 'Run replay' }).click();
    const error = page.getByTestId('replay-error');
    await error.waitFor();
    expect(await error.locator('pre').textContent()).toMatch(
      /^S_T \(teacher performance\) must be a finite number > 0 \(got 0\)$/,
    );
    expect(await page.getByLabel('S_T', { exact: false }).getAttribute('aria-invalid')).toBe('true');
    expect(pageErrors).toEqual([]);
  });

  for (const size of [
    { width: 1280, height: 720 },
    { width: 1920, height: 1080 },
  ]) {
    it(`says at ${size.width}×${size.height} which windows the decision compared, how old they were, and which W reads fresh ones`, async () => {
      await page.setViewportSize(size);
      const dir = mkdtempSync(join(tmpdir(), 'retirelab-replay-stale-'));
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      // a gap every step (K = 1), a validation every 10 steps: S = 0.5, 0.8 at 170, 1 at 180; with S_T = 1, W = 5 the
      // gate retires at 180 (η = 0.9 = γ, ρ = 0 = δ) on window 18, which closed at step 90
      const lines: string[] = [];
      for (let step = 1; step <= 200; step++) {
        const val = step % 10 === 0 ? (step === 180 ? 1 : step === 170 ? 0.8 : 0.5) : undefined;
        lines.push(JSON.stringify(val === undefined ? { step, gap: -1 } : { step, gap: -1, val }));
      }
      writeFileSync(join(dir, 'stale.jsonl'), `${lines.join('\n')}\n`);
      const { summary: expected } = await cli(['stale.jsonl'], ['--teacher-performance', '1', '--window', '5'], dir);
      expect(expected?.evidence).toMatchObject({ step: 180, window_index: 18, window_end_step: 90, age_steps: 90 });
      await fill({ S_T: '1', 'γ (competence threshold)': '0.9' });
      await page.getByLabel('log files').setInputFiles(join(dir, 'stale.jsonl'));
      await page.getByRole('button', { name: 'Run replay' }).click();
      const evidence = page.getByTestId('summary-evidence');
      await expect
        .poll(() => evidence.textContent(), { timeout: 30_000 })
        .toBe('Retired at 180 on window 18 (steps 86–90) against window 17; this evidence is 90 steps old.');
      // the CLI's summary carries the same warnings, word for word
      const warnings = await page.getByTestId('summary-warning').allTextContents();
      expect(warnings).toEqual((expected?.warnings as string[]).map((w) => `⚠ ${w}`));
      expect(warnings.join('\n')).toContain('W = 10 (or a multiple: 20, 30) would evaluate each window');
      // K̄ₘ is drawn against the step that closed its window
      expect(await page.getByTestId('chart-window-mean').textContent()).toContain('window end step');
      // the summary fits the width: no sideways scroll, the warning inside the viewport
      for (const box of [
        await evidence.boundingBox(),
        await page.getByTestId('summary-warning').first().boundingBox(),
      ]) {
        expect(box !== null && box.x >= 0 && box.x + box.width <= size.width).toBe(true);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    });
  }

  it('streams a large verl log in a worker, with a progress bar that advances, to the CLI’s own summary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'retirelab-replay-big-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    // ≈30 MB of verl file-logger lines (≈1 kB each, the gap every step, a validation every 10)
    const lines: string[] = [];
    for (let k = 1; k <= 30_000; k++) {
      const data: Record<string, number> = { 'skillsd/teacher_student_gap_mean': -0.6 * Math.exp(-k / 6000) };
      for (let m = 0; m < 24; m++) data[`actor/metric_${m}/mean`] = Math.sin(k + m) / 3;
      if (k % 10 === 0) data['val/success_rate'] = Math.min(0.95, 0.1 + k / 25_000);
      lines.push(JSON.stringify({ step: k, data }));
    }
    writeFileSync(join(dir, 'big.jsonl'), `${lines.join('\n')}\n`);
    const { summary: expected } = await cli(['big.jsonl'], ['--teacher-performance', '0.9'], dir);
    expect(expected?.type).toBe('summary');
    await fill({ S_T: '0.9' });
    // every value the progress bar takes, recorded in the page as it changes
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { progressSeen: number[] }).progressSeen = seen;
      new MutationObserver(() => {
        const bar = document.querySelector<HTMLProgressElement>('[data-testid=replay-progress] progress');
        if (bar && seen.at(-1) !== bar.value / bar.max) seen.push(bar.value / bar.max);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    await page.getByLabel('log files').setInputFiles(join(dir, 'big.jsonl'));
    const trigger = page.getByTestId('summary-trigger-step');
    await expect
      .poll(() => trigger.allTextContents(), { timeout: 120_000, interval: 250 })
      .toEqual([expected?.trigger_step === null ? 'none' : String(expected?.trigger_step)]);
    const seen = await page.evaluate(() => (window as unknown as { progressSeen: number[] }).progressSeen);
    // read in pieces: the bar stood somewhere strictly between empty and full
    expect(seen.some((f) => f > 0 && f < 1)).toBe(true);
    expect(await page.getByTestId('replay-progress').count()).toBe(0);
    expect(await page.getByTestId('summary-saved').textContent()).toBe(String(expected?.teacher_forward_steps_saved));
    // over 4 MiB: the what-if, which would replay on the page, says so instead of freezing it
    expect(await page.getByTestId('what-if-too-large').count()).toBe(1);
  });
});
