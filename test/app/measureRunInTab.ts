// One run trained in the tab, timed as a user gets it — a measurement to report, not a test:
//   npx tsx test/app/measureRunInTab.ts [preset, default retire-shell] [seed, default 0]
// Builds the app, serves it with `vite preview` (cross-origin isolated, as `npm start`'s server), starts the preset
// on wasm from the Train view in headless Chromium and prints, as one JSON line: the seconds from the Start click to
// "completed" (timed in the page), the run's own wall time from its summary, the test success and trigger step
// (to set beside `npm run experiment -- --preset P --seed S --backend wasm` in the same sitting: the same numbers
// are expected), and the wasm build and thread count the worker chose.
import { withPreviewPage } from './previewBuild';

const preset = process.argv[2] ?? 'retire-shell';
const seed = process.argv[3] ?? '0';

await withPreviewPage(1_800_000, async (page, url, pageErrors) => {
  // tsx names the functions it compiles with a helper (__name) that the page lacks
  await page.addInitScript('globalThis.__name = (f) => f');
  await page.goto(`${url}#train`);
  await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor();
  const presetSelect = page.getByLabel('preset', { exact: true });
  await presetSelect.locator(`option[value="${preset}"]`).waitFor({ state: 'attached' });
  await presetSelect.selectOption(preset);
  await page.getByLabel('backend', { exact: true }).selectOption('wasm');
  await page.getByLabel('seed', { exact: true }).fill(seed);
  // the clock runs in the page: from the click until the status reads "completed" (a MutationObserver, so no
  // polling from here adds work to the page)
  await page.evaluate(() => {
    const w = window as unknown as { __done: Promise<number>; __t0: number };
    w.__done = new Promise((resolve) => {
      const check = () => {
        if (document.querySelector('[data-testid="run-status"]')?.textContent === 'completed')
          resolve(performance.now() - w.__t0);
      };
      new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    document.addEventListener('click', () => (w.__t0 ??= performance.now()), { capture: true, once: true });
  });
  await page.getByRole('button', { name: 'Start' }).click();
  const ms = await page.evaluate(() => (window as unknown as { __done: Promise<number> }).__done);
  const text = async (id: string) => ((await page.getByTestId(id).allTextContents())[0] ?? '').trim();
  // the summary panel's "wall time · backend" entry and its headline ("… the teacher retired at step N")
  const summary = await page.evaluate(() => {
    const dt = [...document.querySelectorAll('dt')].find((e) => e.textContent === 'wall time · backend');
    const retired = /retired at step (\d+)/.exec(document.body.textContent ?? '');
    return { wall: dt?.nextElementSibling?.textContent ?? '', trigger: retired ? Number(retired[1]) : null };
  });
  console.log(
    JSON.stringify({
      preset,
      seed: Number(seed),
      secondsClickToCompleted: Math.round(ms / 100) / 10,
      summaryWall: summary.wall,
      testSuccess: await text('summary-test-success'),
      trigger: summary.trigger,
      wasm: await text('run-wasm'),
      threadChoice: await page.getByTestId('run-wasm').getAttribute('title'),
      pageErrors,
    }),
  );
});
