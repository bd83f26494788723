// The instant demo in a real Chromium, on the production build (vite preview): the Overview draws the recorded arms
// and the retirement marker without starting a run; the Train view's playback plays the retiring recording at 20×
// and the gate inspector's retiring row appears at the recorded trigger step (and exactly there, stepping by
// hand); the trajectory viewer samples the recorded checkpoint at the retirement; a live run of the same config
// draws the recording behind its curves; "Train these three live" queues the three arms and starts the first, and
// that run, stopped and played back from this browser's store, offers its own checkpoints to the trajectory viewer.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FOLDER, type DemoManifest } from '../../src/core/experiment/demoRecording';
import type { ExperimentConfig } from '../../src/core/experiment/config';
import { checkpointRunOrder } from '../../src/core/runLog/checkpointName';
import { readRecordedRun } from '../../src/core/runLog/recordedRunFiles';
import { frameOf, playbackTimeline } from '../../src/core/runLog/runPlayback';
import { HUE } from '../../src/app/charts/chartPalette';
import { launchChromium } from '../support/chromium';
import { ROOT } from './appServer';
import { buildAndPreview, type PreviewedBuild } from './previewBuild';

const DEMO = join(ROOT, 'public', DEMO_FOLDER);
const manifest = JSON.parse(readFileSync(join(DEMO, 'manifest.json'), 'utf8')) as DemoManifest;
const retire = manifest.arms.find((a) => a.preset === 'retire-shell')!;
const trigger = retire.triggerStep!;
const texts = Object.fromEntries(
  retire.files
    .filter((f) => !f.path.startsWith('checkpoints/'))
    .map((f) => [f.path, readFileSync(join(DEMO, 'retire-shell', f.path), 'utf8')]),
);
const timeline = playbackTimeline(readRecordedRun('retire-shell', texts).run);
/** the frame that shows student step `trigger` (the retirement is folded in with it) */
const triggerFrame = frameOf(timeline, 'student', trigger);
/** the checkpoint the recording keeps at the retirement (the first at or after the trigger) */
const atRetirement = retire.checkpoints.find((c) => Number(c.slice(-6)) >= trigger)!;
/** the queue "Train these three live" makes: one run per story arm's student.schedule, on the recordings' seed */
const STORY_ARMS = ['retire-shell', 'opd-shell', 'grpo-shell'];
const liveLabels = STORY_ARMS.map((preset) => {
  const a = manifest.arms.find((x) => x.preset === preset)!;
  const config = JSON.parse(readFileSync(join(DEMO, a.preset, 'config.json'), 'utf8')) as ExperimentConfig;
  return `student.schedule=${config.student.schedule} seed=${manifest.seed}`;
});

describe('the instant demo in a real browser', { shuffle: false }, () => {
  let out: string;
  let app: PreviewedBuild;
  let browser: BrowserContext;
  let page: Page;
  const workers: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'retirelab-demo-'));
    app = await buildAndPreview({ outDir: out });
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('worker', (w) => workers.push(w.url()));
    page.on('pageerror', (e) => pageErrors.push(e.message));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('shows the recorded arms and the retirement marker on the Overview with no run started, and reports how long that took', async () => {
    expect(trigger).toBeGreaterThan(0);
    await page.goto(app.url, { waitUntil: 'load', timeout: 60_000 });
    const chart = page.getByTestId('overview-chart');
    // the promise to a visitor (the story on screen within seconds of the page loading) is a benchmark figure:
    // measured and reported below, never asserted, so a loaded CI machine cannot turn it red
    await chart.getByText(`retired @ ${trigger}`).waitFor({ timeout: 60_000 });
    // reported, not asserted: ms from the navigation's start to the marker on screen
    console.log(
      `overview: retirement marker on screen ${Math.round(await page.evaluate(() => performance.now()))} ms after navigation`,
    );
    expect(await page.getByTestId('overview-arm').evaluateAll((s) => s.map((e) => e.getAttribute('data-arm')))).toEqual(
      ['retire-shell', 'opd-shell', 'grpo-shell'],
    );
    expect(await chart.locator('.recharts-line').count()).toBe(3);
    expect(await page.getByTestId('overview-sentence').textContent()).toContain(
      `The teacher retired at student step ${trigger}`,
    );
    expect(workers.filter((u) => u.includes('trainingWorker'))).toEqual([]);
  });

  it('plays the retiring recording at 20× and shows the inspector’s retiring row at the recorded trigger step', async () => {
    await page.getByTestId('overview-play').click();
    await page.getByTestId('playback-scrubber').waitFor({ timeout: 30_000 });
    await page.getByTestId('playback-speed').fill('20');
    expect(await page.getByTestId('playback-speed-value').textContent()).toBe('20×');
    await page.getByTestId('playback-play').click();
    const retiring = page.locator('[data-testid="gate-window-row"][data-retired="true"]');
    await retiring.waitFor({ timeout: 120_000 });
    expect(await retiring.getAttribute('data-step')).toBe(String(trigger));
    await page.getByTestId('playback-play').click(); // pause
    // exactly there: one frame before the trigger step there is no retiring row; one step on, there is
    await page.getByTestId('playback-scrubber').fill(String(triggerFrame - 1));
    await expect.poll(() => retiring.count()).toBe(0);
    await page.getByTestId('playback-step').click();
    await expect.poll(() => page.getByTestId('playback-position').getAttribute('data-step')).toBe(String(trigger));
    await expect.poll(() => retiring.count()).toBe(1);
    expect(workers.filter((u) => u.includes('trainingWorker'))).toEqual([]);
  });

  it('opens the trajectory viewer at the retirement checkpoint and samples it', async () => {
    await page.getByTestId('probe-checkpoint').selectOption(atRetirement);
    await page.getByTestId('probe-sample').click();
    await page.getByTestId('probe-result').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('probe-error').count()).toBe(0);
    expect(await page.getByTestId('probe-result').textContent()).toContain(
      `Sampled at student step ${Number(atRetirement.slice(-6))}`,
    );
    expect(await page.getByTestId('probe-episode').count()).toBeGreaterThanOrEqual(2);
    expect(pageErrors).toEqual([]);
  });

  it(`races the recording: a live retire-shell run on the recordings' seed (${manifest.seed}) draws the recording faintly behind its curves`, async () => {
    await page.getByTestId('playback-source').waitFor();
    await page.getByRole('button', { name: 'close', exact: true }).click();
    const raced = page.getByTestId('train-success').locator(`path[stroke="${HUE.faint}"]`);
    expect(await raced.count()).toBe(0);
    await page.getByLabel('preset', { exact: true }).selectOption('retire-shell');
    await page.getByLabel('seed', { exact: true }).fill(String(manifest.seed));
    await page.getByLabel('backend', { exact: true }).selectOption('wasm');
    await page.getByTestId('run-start').click();
    // the recording's validation success (the faint line colour) behind the live run's, from the moment the run has its config
    await raced.first().waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 120_000 })
      .toMatch(/stopped|completed/);
    expect(pageErrors).toEqual([]);
  });

  it('runs the guided tour on the recording by default: each stop moves the playhead to its moment', async () => {
    const fresh = await browser.newPage();
    fresh.on('pageerror', (e) => pageErrors.push(e.message));
    await fresh.goto(`${app.url}#train`, { waitUntil: 'load', timeout: 60_000 });
    await fresh.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 30_000 });
    await fresh.getByRole('button', { name: 'Present' }).click();
    await fresh.getByRole('button', { name: 'Start the guided tour' }).click();
    await expect
      .poll(() => fresh.getByTestId('tour-text').textContent(), { timeout: 30_000 })
      .toContain('This is a recording of retire-shell');
    expect(await fresh.getByTestId('tour-recording').isChecked()).toBe(true);
    // stop 6 (retirement): the playhead at the trigger step, the retiring row on screen
    for (let i = 0; i < 5; i++) await fresh.getByRole('button', { name: 'Next ›' }).click();
    await expect.poll(() => fresh.getByTestId('playback-position').getAttribute('data-step')).toBe(String(trigger));
    await fresh.locator('[data-testid="gate-window-row"][data-retired="true"]').waitFor({ timeout: 30_000 });
    // "train it live instead": the playback ends and the view is empty, ready for Start
    await fresh.getByTestId('tour-recording').uncheck();
    await expect.poll(() => fresh.getByTestId('playback-scrubber').count()).toBe(0);
    expect(await fresh.getByTestId('run-status').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await fresh.close();
  });

  // last: the queue it makes lives in this browser's IndexedDB, and a page opened after it would carry it on
  it('“Train these three live” queues the three arms and starts the first; stopped, its run plays back with its own checkpoints', async () => {
    const fresh = await browser.newPage();
    fresh.on('pageerror', (e) => pageErrors.push(e.message));
    await fresh.goto(app.url, { waitUntil: 'load', timeout: 60_000 });
    const live = fresh.getByTestId('overview-live');
    await expect.poll(() => live.isEnabled(), { timeout: 30_000 }).toBe(true);
    await live.click();
    // the Train view, while the queue runs (not once it is done)
    await expect.poll(() => new URL(fresh.url()).hash, { timeout: 30_000 }).toBe('#train');
    const queue = fresh.getByTestId('queue').first();
    await expect.poll(() => queue.getAttribute('data-state'), { timeout: 60_000 }).toBe('running');
    const items = queue.getByTestId('queue-item');
    expect(await items.count()).toBe(3);
    expect((await items.allTextContents()).map((t) => t.split(' — ')[0])).toEqual(liveLabels);
    // the first run starts in the Train view (stopped at once: this checks the start, not the training)
    await expect.poll(() => items.first().getAttribute('data-status'), { timeout: 60_000 }).toBe('running');
    await expect.poll(() => fresh.getByTestId('run-status').textContent(), { timeout: 120_000 }).toBe('running');
    await fresh.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => items.first().getAttribute('data-status'), { timeout: 120_000 }).toBe('stopped');

    // the stopped run, played back from this browser's store: the viewer lists the checkpoints IndexedDB keeps of
    // it, in run order, and samples one through the checkpoint probe worker
    const stored = await fresh.evaluate(async (label) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open('retirelab-runs');
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const getAll = <T>(store: string): Promise<T[]> =>
        new Promise<T[]>((resolve) => {
          const req = db.transaction(store).objectStore(store).getAll();
          req.onsuccess = () => resolve(req.result as T[]);
        });
      const run = (await getAll<{ id: string; label?: string }>('runs')).find((r) => r.label === label);
      const names = (await getAll<{ runId: string; name: string }>('checkpoints'))
        .filter((c) => c.runId === run?.id)
        .map((c) => c.name);
      db.close();
      return { id: run?.id ?? null, names };
    }, liveLabels[0]!);
    expect(stored.id).not.toBeNull();
    expect(stored.names.length).toBeGreaterThan(0);
    console.log(`stored run ${liveLabels[0]}: checkpoints kept in IndexedDB ${stored.names.join(', ')}`);
    await fresh.getByTestId('playback-source').selectOption(`run:${stored.id}`);
    const picker = fresh.getByTestId('probe-checkpoint');
    await picker.waitFor({ timeout: 30_000 });
    expect(await picker.locator('option').evaluateAll((o) => o.map((e) => e.getAttribute('value')))).toEqual(
      [...stored.names].sort((a, b) => checkpointRunOrder(a) - checkpointRunOrder(b)),
    );
    const newest = stored.names.reduce((a, b) => (checkpointRunOrder(b) > checkpointRunOrder(a) ? b : a));
    await picker.selectOption(newest);
    await fresh.getByTestId('probe-sample').click();
    const result = fresh.getByTestId('probe-result');
    await result.waitFor({ timeout: 120_000 });
    expect(await fresh.getByTestId('probe-error').count()).toBe(0);
    expect(await result.textContent()).toContain(`Sampled at ${newest.slice(0, -7)} step ${Number(newest.slice(-6))}`);
    expect(await fresh.getByTestId('probe-episode').count()).toBeGreaterThanOrEqual(1);
    console.log(`stored-run probe: ${await result.locator('p').first().textContent()}`);
    // a stored run this browser keeps no checkpoint of: the viewer says why it is not there
    await fresh.evaluate(async (id) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open('retirelab-runs');
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      await new Promise<void>((resolve, reject) => {
        const tx = db.transaction('checkpoints', 'readwrite');
        tx.objectStore('checkpoints').delete(IDBKeyRange.bound([id, ''], [id, '\uffff']));
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
      db.close();
    }, stored.id!);
    await fresh.getByTestId('playback-source').selectOption('recording:opd-shell');
    await fresh.getByTestId('probe-checkpoint').waitFor({ timeout: 30_000 });
    await fresh.getByTestId('playback-source').selectOption(`run:${stored.id}`);
    await fresh.getByTestId('probe-unavailable').waitFor({ timeout: 30_000 });
    expect(await fresh.getByTestId('probe-checkpoint').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await fresh.close();
  });
});
