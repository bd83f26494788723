// A log line of 200,000 keys in the gate replay view, in a real Chromium: the replay worker refuses it with the
// FILE:LINE message `npm run replay` gives (cli/replay.ts's main, in-process) and the page stays responsive — the
// line is parsed in the worker, not on the main thread. The page's longest main-thread task from the file's choice
// until the refusal is shown is printed (a measurement, not an assertion: on 2 shared cores timings say little).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, nodeIo } from '../../cli/replay';
import { CHROMIUM_PATH, launchChromium } from '../support/chromium';
import { startAppServer, type AppServer } from './appServer';
import { recordLongTasks } from './previewBuild';

const KEYS = 200_000;

describe.skipIf(!existsSync(CHROMIUM_PATH))('a 200,000-key log line in the gate replay view', () => {
  let server: AppServer;
  let browser: BrowserContext;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'retirelab-replay-wide-'));
    server = await startAppServer();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is refused at FILE:LINE as the CLI refuses it, without freezing the page', async () => {
    const wide: Record<string, number> = { step: 3 };
    for (let i = 0; i < KEYS; i++) wide[`metric/k${i}`] = i / KEYS;
    const text = [
      JSON.stringify({ step: 1, 'opd/teacher_student_gap_mean': -0.4, 'val/success_rate': 0.2 }),
      JSON.stringify({ step: 2, 'opd/teacher_student_gap_mean': -0.3, 'val/success_rate': 0.3 }),
      JSON.stringify(wide),
      '',
    ].join('\n');
    writeFileSync(join(dir, 'wide.jsonl'), text);
    let stderr = '';
    const status = await main(['wide.jsonl', '--teacher-performance', '0.8'], {
      stdout: () => {},
      stderr: (t) => void (stderr += t),
      readLog: (path) => nodeIo.readLog(resolve(dir, path)),
    });
    expect(status).toBe(2);
    expect(stderr.trim()).toMatch(/^wide\.jsonl:3: /);

    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await recordLongTasks(page);
    await page.goto(`${server.url}#replay`);
    await page.getByRole('heading', { name: 'Gate replay', level: 2 }).waitFor({ timeout: 60_000 });
    await page.getByLabel('S_T', { exact: false }).fill('0.8');
    await page.getByLabel('log files').setInputFiles(join(dir, 'wide.jsonl'));
    await page.getByRole('button', { name: 'Run replay' }).click();
    const error = page.getByTestId('replay-error');
    await error.waitFor({ timeout: 120_000 });
    expect(await error.locator('pre').textContent()).toBe(stderr.trim());
    const tasks = await page.evaluate(() => {
      const w = window as unknown as { __longTasks: { start: number; duration: number }[]; __t0: number };
      return w.__longTasks.filter((t) => t.start + t.duration >= w.__t0).map((t) => t.duration);
    });
    console.log(
      `gate replay of a ${(text.length / 1024 / 1024).toFixed(1)} MB log with a ${KEYS}-key line (dev build): ` +
        `refused as the CLI refuses it; main-thread long tasks from the file's choice until the refusal: ` +
        `${tasks.length}, longest ${Math.max(0, ...tasks).toFixed(0)} ms`,
    );
    expect(pageErrors).toEqual([]);
  }, 300_000);
});
