// The README's teaching screenshots (docs/img/teaching-*.png), taken in headless Chromium at 1280×720 from the dev
// server: `npx tsx test/app/teachingScreenshots.ts`. Not a test: a script that regenerates pictures.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../support/chromium';
import { ROOT, startAppServer } from './appServer';

const OUT = join(ROOT, 'docs/img');
const FIXTURE = join(ROOT, 'test/fixtures/replay/verl_retire_opd.jsonl');

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

    // a smoke run held in the student stage, its trajectories sampled
    await page.goto(`${server.url}#train`);
    await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
    const preset = page.getByLabel('preset', { exact: true });
    await preset.locator('option[value="smoke"]').waitFor({ state: 'attached', timeout: 30_000 });
    await preset.selectOption('smoke');
    await page.getByLabel('backend', { exact: true }).selectOption('wasm');
    await page.getByRole('button', { name: 'Start' }).click();
    const progress = page.getByTestId('run-progress');
    for (let i = 0; i < 600; i++) {
      const text = (await progress.textContent().catch(() => '')) ?? '';
      if (/student (1[1-9]|[2-9]\d)\//.test(text)) break;
      await page.waitForTimeout(50);
    }
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByTestId('step-position').filter({ hasText: 'held after student' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Sample trajectories' }).click();
    await page.getByTestId('probe-result').waitFor({ timeout: 60_000 });
    const viewer = page.getByRole('region', { name: 'trajectory viewer' });
    await viewer.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUT, 'teaching-trajectories.png') });

    // presentation mode and its tour, over the held run
    await page.getByRole('button', { name: 'Present' }).click();
    await page.keyboard.press('t');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(800);
    await page.screenshot({ path: join(OUT, 'teaching-presentation.png') });
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
