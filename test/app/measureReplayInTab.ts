// The gate replay of a large verl log in the tab against `npm run replay` on the same file — a measurement to
// report, not a test:  npx tsx test/app/measureReplayInTab.ts [size in MB, default 200] [--trace]
// Writes a synthetic verl file-logger JSONL (the shape bench/replayMemory.ts writes: ≈2.5 kB lines, ~60 metrics,
// bare NaN, a validation every 10 steps) to the temp folder; times the CLI on it under /usr/bin/time -v; builds the
// app, serves it with `vite preview`, drops the file on the Gate replay view (S_T 0.9) and times, in the page, from
// the file input's change event to the summary; prints both times, the trigger steps, and the main-thread long tasks
// (PerformanceObserver 'longtask') from the drop to the summary. Deletes the file and the build. --trace: an
// unminified build, and what each long task was made of (longTaskTrace.ts).
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../support/chromium';
import { ROOT } from './appServer';
import { verlLine } from '../../bench/verlLogLine';
import { buildAndPreview, recordLongTasks } from './previewBuild';
import { printLongTasks, startLongTaskTrace } from './longTaskTrace';

const trace = process.argv.includes('--trace');
const megabytes = Number(process.argv.slice(2).find((a) => a !== '--trace') ?? 200);
const work = mkdtempSync(join(tmpdir(), 'retirelab-replay-tab-'));
const log = join(work, 'verl-big.jsonl');

async function writeLog(): Promise<void> {
  const out = createWriteStream(log);
  const target = megabytes * 1024 * 1024;
  let bytes = 0;
  for (let k = 1; bytes < target;) {
    let batch = '';
    for (let i = 0; i < 1000; i++, k++) batch += verlLine(k);
    bytes += Buffer.byteLength(batch);
    if (!out.write(batch)) await new Promise<void>((done) => out.once('drain', () => done()));
  }
  await new Promise<void>((done, fail) => out.end((e?: Error | null) => (e ? fail(e) : done())));
}

function timeCli(): { seconds: number; rssMb: number; trigger: unknown } {
  const args = ['--import', 'tsx', join(ROOT, 'cli/replay.ts'), log, '--teacher-performance', '0.9'];
  const t0 = Date.now();
  const run = spawnSync('/usr/bin/time', ['-v', process.execPath, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const seconds = (Date.now() - t0) / 1000;
  if (run.status !== 0) throw new Error(`the CLI failed: ${run.stderr.slice(0, 500)}`);
  const rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr)?.[1]);
  const summary = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { trigger_step?: unknown };
  return { seconds, rssMb: rssKb / 1024, trigger: summary.trigger_step };
}

async function timeTab(): Promise<{
  seconds: number;
  readSeconds: number;
  trigger: string;
  longTasks: { at: number; duration: number }[];
  progressSeen: boolean;
}> {
  const outDir = join(work, 'dist');
  const server = await buildAndPreview({ outDir, minify: !trace });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(600_000);
    await recordLongTasks(page);
    await page.addInitScript(() => {
      // the last moment the progress bar was on the page: the read ended after it, the results' render began
      const r = window as unknown as { __reading: number };
      r.__reading = 0;
      new MutationObserver(() => {
        if (document.querySelector('[data-testid=replay-progress]')) r.__reading = performance.now();
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    await page.goto(`${server.url}#replay`);
    await page.getByLabel('S_T', { exact: false }).fill('0.9');
    const cdp = trace ? await startLongTaskTrace(browser, page) : null;
    await page.getByLabel('log files').setInputFiles(log);
    const progressSeen = await page.evaluate(
      () => document.querySelector('[data-testid=replay-progress] progress') !== null,
    );
    // waited for in the page by a MutationObserver: a polling locator would itself make main-thread tasks
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const found = () => document.querySelector('[data-testid=summary-trigger-step]') !== null;
          if (found()) return resolve();
          const watch = new MutationObserver(() => {
            if (!found()) return;
            watch.disconnect();
            resolve();
          });
          watch.observe(document.body, { subtree: true, childList: true });
        }),
    );
    const summaryMs = await page.evaluate(() => performance.now() - (window as unknown as { __t0: number }).__t0);
    // the long tasks of drawing the results too: 3 s more, idle in the harness
    await page.waitForTimeout(3000);
    const result = await page.evaluate(() => {
      const w = window as unknown as { __longTasks: { start: number; duration: number }[]; __t0: number };
      return {
        readMs: (window as unknown as { __reading: number }).__reading - w.__t0,
        t0: w.__t0,
        tasks: w.__longTasks
          .filter((t) => t.start >= w.__t0)
          .map((t) => ({ at: t.start - w.__t0, duration: t.duration })),
      };
    });
    if (cdp) await printLongTasks(cdp);
    const trigger = (await page.getByTestId('summary-trigger-step').textContent()) ?? '';
    // performance.now() at the summary's first paint is a little later than its appearance: the poll above
    return {
      seconds: summaryMs / 1000,
      readSeconds: result.readMs / 1000,
      trigger,
      longTasks: result.tasks,
      progressSeen,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

try {
  await writeLog();
  const size = statSync(log).size / 1024 / 1024;
  const cli = timeCli();
  console.log(
    `CLI (npm run replay, /usr/bin/time -v): ${cli.seconds.toFixed(1)} s, peak RSS ${cli.rssMb.toFixed(0)} MB, trigger ${String(cli.trigger)}`,
  );
  const tab = await timeTab();
  const sorted = [...tab.longTasks].sort((a, b) => b.duration - a.duration);
  const reading = tab.longTasks.filter((t) => t.at < tab.readSeconds * 1000);
  console.log(
    `tab (production build, Gate replay view): ${tab.seconds.toFixed(1)} s from the drop to the summary ` +
      `(read until ${tab.readSeconds.toFixed(1)} s, then the results drawn), trigger ${tab.trigger}; progress bar ` +
      `shown: ${tab.progressSeen}; main-thread long tasks (> 50 ms) while the file was read: ${reading.length}` +
      `${reading.length ? ` (longest ${Math.max(...reading.map((t) => t.duration)).toFixed(0)} ms)` : ''}; ` +
      `from the drop to 3 s after the summary: ${tab.longTasks.length}, the five longest ("ms at ms after the drop"): ${sorted
        .slice(0, 5)
        .map((t) => `${t.duration.toFixed(0)} at ${t.at.toFixed(0)}`)
        .join(', ')}`,
  );
  console.log(`log ${size.toFixed(0)} MB; tab ÷ CLI = ${(tab.seconds / cli.seconds).toFixed(2)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
