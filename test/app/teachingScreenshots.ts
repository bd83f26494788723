// The README's teaching screenshots (docs/img/teaching-*.png), taken in headless Chromium at 1280×720 from the dev
// server: `npx tsx test/app/teachingScreenshots.ts`. Not a test: a script that regenerates pictures. The run views
// show the real demo, retire-shell on wasm, held in its student stage (a few minutes of training on 2 cores).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../support/chromium';
import { ROOT, startAppServer } from './appServer';

const OUT = join(ROOT, 'docs/img');
const FIXTURE = join(ROOT, 'test/fixtures/replay/verl_retire_opd.jsonl');
/** the real demo, not the smoke preset (whose relaxed thresholds and 0 % success say nothing about the science) */
const DEMO = 'retire-shell';
/** where the run is held for the pictures: past a few gate windows (W = 5, validation every 5) */
const HOLD_AT_STUDENT_STEP = 45;

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const server = await startAppServer();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(`${server.url}#replay`, { timeout: 120_000 });
    await page.getByRole('heading', { name: 'Gate replay', level: 2 }).waitFor({ timeout: 60_000 });
    await page.getByLabel('S_T', { exact: false }).first().fill('0.8');
    await page.getByLabel('log files').setInputFiles(FIXTURE);
    await page.getByRole('button', { name: 'Run replay' }).click();
    await page.getByTestId('gate-window-row').first().waitFor();

    const inspector = page.getByRole('region', { name: 'gate inspector' });
    await inspector.scrollIntoViewIfNeeded();
    await inspector.screenshot({ path: join(OUT, 'teaching-inspector.png') });

    await page.getByLabel('δ (what-if)', { exact: true }).fill('0.1');
    const whatIf = page.getByRole('region', { name: 'what-if' });
    await whatIf.scrollIntoViewIfNeeded();
    await whatIf.screenshot({ path: join(OUT, 'teaching-whatif.png') });

    await page.getByRole('button', { name: 'explain ρ — alignment progress' }).first().click();
    const chart = page.getByTestId('chart-alignment');
    await chart.scrollIntoViewIfNeeded();
    await page.waitForTimeout(300); // KaTeX fonts
    const box = await chart.boundingBox();
    const panel = await page.getByRole('region', { name: 'about ρ — alignment progress' }).boundingBox();
    if (box && panel) {
      const x = Math.max(0, Math.min(box.x, panel.x) - 10);
      const y = Math.max(0, Math.min(box.y, panel.y) - 10);
      const right = Math.max(box.x + box.width, panel.x + panel.width) + 10;
      const bottom = Math.max(box.y + box.height, panel.y + panel.height) + 10;
      await page.screenshot({
        path: join(OUT, 'teaching-explain.png'),
        clip: { x, y, width: right - x, height: bottom - y },
      });
    }
    await page.keyboard.press('Escape');

    // the default demo held in the student stage once its gate has evaluated a few windows, trajectories sampled
    await page.goto(`${server.url}#train`);
    await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
    const preset = page.getByLabel('preset', { exact: true });
    await preset.locator(`option[value="${DEMO}"]`).waitFor({ state: 'attached', timeout: 30_000 });
    await preset.selectOption(DEMO);
    await page.getByLabel('backend', { exact: true }).selectOption('wasm');
    await page.getByRole('button', { name: 'Start' }).click();
    const progress = page.getByTestId('run-progress');
    const started = Date.now();
    for (;;) {
      const text = (await progress.textContent().catch(() => '')) ?? '';
      const m = /student (\d+)\//.exec(text);
      if (m && Number(m[1]) >= HOLD_AT_STUDENT_STEP) break;
      if (Date.now() - started > 15 * 60_000)
        throw new Error(`${DEMO} did not reach student step ${HOLD_AT_STUDENT_STEP}`);
      await page.waitForTimeout(500);
    }
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByTestId('step-position').filter({ hasText: 'held after student' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Sample trajectories' }).click();
    await page.getByTestId('probe-result').waitFor({ timeout: 60_000 });
    const viewer = page.getByRole('region', { name: 'trajectory viewer' });
    await viewer.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUT, 'teaching-trajectories.png') });

    // presentation mode and its tour's stop on K̄ₘ, over the held run (the card docked beside the chart)
    await page.getByRole('button', { name: 'Present' }).click();
    await page.keyboard.press('t');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(800);
    await page.screenshot({ path: join(OUT, 'teaching-presentation.png') });

    // the live episode strip while the demo trains (presentation mode off)
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Resume' }).click();
    const strip = page.getByTestId('live-episode');
    await strip.waitFor({ timeout: 60_000 });
    await page.waitForTimeout(2500);
    await strip.scrollIntoViewIfNeeded();
    await strip.screenshot({ path: join(OUT, 'teaching-live-episode.png') });
    await page.getByRole('button', { name: 'Stop' }).click();
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
