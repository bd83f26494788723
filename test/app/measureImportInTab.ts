// Importing a run folder with a large metrics.jsonl into the tab — a measurement to report, not a test:
//   npx tsx test/app/measureImportInTab.ts [size of metrics.jsonl in MB, default 150]
// Writes a run folder to the temp folder (the smoke preset's resolved config.json and a metrics.jsonl of the lab's
// own ≈190-byte lines), builds the app, serves it with `vite preview`, imports the two files through the runs
// table's "import files…" input and prints the time from the input's change event until the run is listed, the
// rows stored, and the main-thread long tasks (PerformanceObserver 'longtask') meanwhile.
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import { launchChromium } from '../support/chromium';
import { ROOT } from './appServer';
import { buildAndPreview, recordLongTasks } from './previewBuild';

const megabytes = Number(process.argv[2] ?? 150);
const work = mkdtempSync(join(tmpdir(), 'retirelab-import-tab-'));
const folder = join(work, 'run');

/** One line of the lab's metrics.jsonl at student step k (≈190 B). */
function labLine(k: number): string {
  const row: Record<string, number | null> = {
    step: k,
    'grpo/reward_mean': 0.2 + 0.5 * Math.tanh(k / 50_000),
    'grpo/frac_reward_zero_std': 0.1 + 0.05 * Math.sin(k),
    'opd/teacher_student_gap_mean': -0.6 * Math.exp(-k / 200_000) - 0.01 * Math.sin(k),
    'retire_opd/trigger_step': -1,
    'retire_opd/teacher_forward_skipped': 0,
  };
  if (k % 10 === 0) row['val/success_rate'] = Math.min(0.95, 0.1 + k / 1_000_000);
  return `${JSON.stringify(row)}\n`;
}

async function writeFolder(): Promise<number> {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(folder);
  const preset = loadPreset(
    'smoke',
    (n) => JSON.parse(readFileSync(join(ROOT, 'public/presets', `${n}.json`), 'utf8')) as unknown,
    PRESET_NAMES,
  );
  writeFileSync(join(folder, 'config.json'), JSON.stringify(preset.config, null, 2));
  const out = createWriteStream(join(folder, 'metrics.jsonl'));
  const target = megabytes * 1024 * 1024;
  let bytes = 0;
  let k = 1;
  while (bytes < target) {
    let batch = '';
    for (let i = 0; i < 1000; i++, k++) batch += labLine(k);
    bytes += Buffer.byteLength(batch);
    if (!out.write(batch)) await new Promise<void>((done) => out.once('drain', () => done()));
  }
  await new Promise<void>((done, fail) => out.end((e?: Error | null) => (e ? fail(e) : done())));
  return k - 1;
}

try {
  const steps = await writeFolder();
  const mb = statSync(join(folder, 'metrics.jsonl')).size / 1024 / 1024;
  const outDir = join(work, 'dist');
  const server = await buildAndPreview({ outDir });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(900_000);
    await recordLongTasks(page);
    await page.goto(`${server.url}#train`);
    await page.getByTestId('runs-table').waitFor();
    await page.getByTestId('import-files').setInputFiles([join(folder, 'config.json'), join(folder, 'metrics.jsonl')]);
    // waited for in the page (a MutationObserver): a polling locator would itself make main-thread tasks
    const result = await page.evaluate(
      () =>
        new Promise<{ ms: number; tasks: { at: number; duration: number }[]; step: string }>((resolve) => {
          const w = window as unknown as { __longTasks: { start: number; duration: number }[]; __t0: number };
          const row = () => document.querySelector('[data-testid=run-row][data-status=imported]');
          const finish = () =>
            resolve({
              ms: performance.now() - w.__t0,
              tasks: w.__longTasks
                .filter((t) => t.start >= w.__t0)
                .map((t) => ({ at: t.start - w.__t0, duration: t.duration })),
              step: row()?.textContent ?? '',
            });
          if (row()) return finish();
          const watch = new MutationObserver(() => {
            if (!row()) return;
            watch.disconnect();
            finish();
          });
          watch.observe(document.body, { subtree: true, childList: true, attributes: true });
        }),
    );
    const error = await page.locator('.runs [role=alert]').allTextContents();
    const sorted = [...result.tasks].sort((a, b) => b.duration - a.duration);
    console.log(
      `import of a run folder with a ${mb.toFixed(0)} MB metrics.jsonl (${steps} steps), production build: ` +
        `${(result.ms / 1000).toFixed(1)} s until listed; main-thread long tasks (> 50 ms) meanwhile: ${result.tasks.length}, ` +
        `longest ${(sorted[0]?.duration ?? 0).toFixed(0)} ms (${sorted
          .slice(0, 5)
          .map((t) => `${t.duration.toFixed(0)} at ${t.at.toFixed(0)}`)
          .join(', ')})${error.length ? `; error: ${error.join(' ')}` : ''}`,
    );
  } finally {
    await browser.close();
    await server.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
