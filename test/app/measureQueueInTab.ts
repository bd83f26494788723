// A queue trained in the tab, timed as a user gets it — a measurement to report, not a test:
//   npx tsx test/app/measureQueueInTab.ts [preset, default retire-shell] [seeds, default 0,1] [axis, default
//   student.schedule=adaptive,never]
// Builds the app, serves it with `vite preview` (cross-origin isolated, as `npm start`'s server), queues the preset ×
// seeds × axis on wasm from the Train view's queue form in headless Chromium and prints, as one JSON line: the seconds
// from the queue's Start click to the queue's "done" (timed in the page), the page's main-thread long tasks in that
// time (count, the longest, their sum, ms), the main thread's busy time in that time (Chromium's TaskDuration and
// ScriptDuration, s), how often the live entropy chart redrew (count, median and 90th-percentile gap, ms), each item's
// status, and the page errors. Set it beside
// `npm run sweep -- --preset P --seeds S --vary AXIS --backend wasm` in the same sitting.
import { recordLongTasks, withPreviewPage } from './previewBuild';

const preset = process.argv[2] ?? 'retire-shell';
const seeds = process.argv[3] ?? '0,1';
const axis = process.argv[4] ?? 'student.schedule=adaptive,never';

await withPreviewPage(3_600_000, async (page, url, pageErrors) => {
  await recordLongTasks(page);
  await page.goto(`${url}#train?preset=${preset}&backend=wasm`);
  await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor();
  await page.getByTestId('queue-open').click();
  const presetSelect = page.getByLabel('queue preset');
  await presetSelect.getByRole('option', { name: preset }).waitFor({ state: 'attached' });
  await presetSelect.selectOption(preset);
  await page.getByLabel('queue seeds').fill(seeds);
  await page.getByLabel('queue axes').fill(axis);
  await page.getByLabel('queue backend').selectOption('wasm');
  // the clock runs in the page: from the click until the queue reads "done" (a MutationObserver, so no polling
  // from here adds work to the page)
  await page.evaluate(() => {
    const w = window as unknown as { __done: Promise<number>; __t0: number };
    w.__done = new Promise((resolve) => {
      const check = () => {
        if (document.querySelector('[data-testid="queue"]')?.getAttribute('data-state') === 'done')
          resolve(performance.now());
      };
      new MutationObserver(check).observe(document.body, { subtree: true, attributes: true, childList: true });
    });
    document.addEventListener('click', () => (w.__t0 = performance.now()), { capture: true });
    // one MutationObserver callback per task that changed the chart: one per redraw
    const redraws: number[] = [];
    (w as unknown as { __redraws: number[] }).__redraws = redraws;
    const chart = document.querySelector('[data-testid="train-entropy"] .chart-body');
    if (chart)
      new MutationObserver(() => redraws.push(performance.now())).observe(chart, {
        subtree: true,
        childList: true,
        attributes: true,
        characterData: true,
      });
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metric = async (name: string) =>
    (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === name)?.value ?? 0;
  const busy0 = { task: await metric('TaskDuration'), script: await metric('ScriptDuration') };
  await page.getByTestId('queue-start').click();
  const { t0, t1 } = await page.evaluate(async () => {
    const w = window as unknown as { __done: Promise<number>; __t0: number };
    return { t1: await w.__done, t0: w.__t0 };
  });
  const longTasks = await page.evaluate(
    ({ from, to }) =>
      (window as unknown as { __longTasks: { start: number; duration: number }[] }).__longTasks
        .filter((t) => t.start >= from && t.start <= to)
        .map((t) => t.duration),
    { from: t0, to: t1 },
  );
  const busy = {
    taskS: Math.round(((await metric('TaskDuration')) - busy0.task) * 10) / 10,
    scriptS: Math.round(((await metric('ScriptDuration')) - busy0.script) * 10) / 10,
  };
  const redraws = await page.evaluate(
    ({ from, to }) => (window as unknown as { __redraws: number[] }).__redraws.filter((t) => t >= from && t <= to),
    { from: t0, to: t1 },
  );
  const gaps = redraws
    .slice(1)
    .map((t, i) => t - (redraws[i] ?? t))
    .sort((a, b) => a - b);
  const items = await page
    .getByTestId('queue-item')
    .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-status')}: ${e.textContent?.trim() ?? ''}`));
  console.log(
    JSON.stringify({
      preset,
      seeds,
      axis,
      secondsClickToDone: Math.round((t1 - t0) / 100) / 10,
      longTasks: {
        count: longTasks.length,
        maxMs: Math.round(Math.max(0, ...longTasks)),
        sumMs: Math.round(longTasks.reduce((a, b) => a + b, 0)),
      },
      mainThreadBusy: busy,
      entropyChartRedraws: {
        count: redraws.length,
        medianGapMs: Math.round(gaps[gaps.length >> 1] ?? 0),
        p90GapMs: Math.round(gaps[Math.floor(gaps.length * 0.9)] ?? 0),
      },
      items,
      pageErrors,
    }),
  );
});
