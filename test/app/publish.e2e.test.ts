// The published lab in a real Chromium, as a teacher meets it: the production build (relative asset URLs) served by
// a plain static server (cli/serveStatic.ts: no COOP/COEP headers, GitHub Pages-like) under a sub-path. The page
// loads, its service worker reloads it once and it is cross-origin isolated; the smoke preset trains on threaded
// wasm and Step advances exactly one step; with the server stopped, a reload still loads the app (isolated, from
// the service worker's cache), smoke trains again, a shortened retire-shell loads its shipped teacher in the worker,
// and the run stored before the reload is still listed; a new version of the service worker is offered as "update
// available — reload", which keeps the stored runs. Where no service worker can run, the page says why it stays
// single-threaded, Step says it too, and smoke trains on one thread.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStaticServer, type StaticServer } from '../../cli/serveStatic';
import { CHROMIUM_FLAGS } from '../../cli/chromium';
import { CHROMIUM_PATH, launchChromium } from '../support/chromium';
import { ROOT } from './appServer';

const BASE = '/retirelab/';

/** Whether the page is cross-origin isolated, or null while it is between two documents (the isolating reload). */
async function isolated(page: Page): Promise<boolean | null> {
  try {
    return await page.evaluate(() => globalThis.crossOriginIsolated);
  } catch {
    return null;
  }
}

/** Where a held run is: "held after student step 4" → { stage: 'student', step: 4 }. */
async function position(page: Page): Promise<{ stage: string; step: number }> {
  const text = (await page.getByTestId('step-position').textContent()) ?? '';
  const m = /held after (\w*) step (\d+)/.exec(text);
  if (!m) throw new Error(`not held: "${text}"`);
  return { stage: m[1] ?? '', step: Number(m[2]) };
}

const STAGES = ['demonstrations', 'sft', 'teacher', 'student'];

// One scenario in order (never shuffled): each step continues in the page and the origin the previous one left.
describe.skipIf(!existsSync(CHROMIUM_PATH))('the published build on a plain static host', { shuffle: false }, () => {
  let outDir: string;
  let server: StaticServer | null = null;
  let port = 0;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  /** main-frame documents loaded (the first visit, then the service worker's isolating reload) */
  let documents = 0;
  let firstRunId = '';
  /** the wasm badge of the first run: the threaded build with one thread per logical core */
  let threadedBadge = '';

  beforeAll(async () => {
    outDir = mkdtempSync(join(tmpdir(), 'retirelab-publish-'));
    await build({
      root: ROOT,
      configFile: join(ROOT, 'vite.config.ts'),
      logLevel: 'error',
      build: { outDir, emptyOutDir: true },
    });
    server = await startStaticServer({ dir: outDir, base: BASE, port: 0, host: '127.0.0.1' });
    port = server.port;
    browser = await launchChromium();
    page = await browser.newPage();
    // these tests are about the threaded binary: the app's own override pins every core, where the start-up
    // calibration (which a run now waits for) may choose one thread on a small machine
    await page.addInitScript(() =>
      localStorage.setItem('retirelab.wasmThreads', String(navigator.hardwareConcurrency || 1)),
    );
    page.setDefaultTimeout(90_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('load', () => documents++);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  const rows = () => page.getByTestId('run-row');
  const status = () => page.getByTestId('run-status');

  async function trainSmoke(page: Page): Promise<void> {
    await page
      .getByLabel('preset', { exact: true })
      .locator('option[value="smoke"]')
      .waitFor({ state: 'attached', timeout: 60_000 });
    await page.getByLabel('preset', { exact: true }).selectOption('smoke');
    await page.getByLabel('backend', { exact: true }).selectOption('wasm');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
  }

  it('lists the app shell, both wasm flavours, the KaTeX fonts, every preset, the teachers and the recordings', () => {
    const sw = readFileSync(join(outDir, 'serviceWorker.js'), 'utf8');
    const urls = new Set([...sw.matchAll(/"url":"([^"]+)"/g)].map((m) => m[1]));
    const has = (re: RegExp) => [...urls].filter((u) => u !== undefined && re.test(u)).length;
    expect(urls.has('index.html')).toBe(true);
    expect(has(/^assets\/index-[\w-]+\.js$/)).toBe(1);
    expect(has(/^assets\/trainingWorker-[\w-]+\.js$/)).toBe(1);
    expect(has(/^assets\/tfjs-backend-wasm-threaded-simd-[\w-]+\.wasm$/)).toBe(1);
    expect(has(/^assets\/tfjs-backend-wasm-simd-[\w-]+\.wasm$/)).toBe(1);
    expect(has(/^assets\/tfjs-backend-wasm-[A-Za-z0-9_]+\.wasm$/), 'the plain binary').toBe(1);
    // every woff2 font the built CSS names (KaTeX's; the smallest is inlined into the CSS as data)
    const css = readdirSync(join(outDir, 'assets')).filter((f) => f.endsWith('.css'));
    const fonts = css.flatMap((f) =>
      [...readFileSync(join(outDir, 'assets', f), 'utf8').matchAll(/url\(\.\/([^)]+\.woff2)\)/g)].map((m) => m[1]),
    );
    expect(fonts.length).toBeGreaterThanOrEqual(19);
    for (const font of fonts) expect(urls.has(`assets/${font}`), font).toBe(true);
    const presets = JSON.parse(readFileSync(join(ROOT, 'public/presets/index.json'), 'utf8')) as string[];
    for (const p of ['index', ...presets]) expect(urls.has(`presets/${p}.json`), p).toBe(true);
    for (const env of ['shell', 'house', 'shop']) {
      for (const f of ['model.json', 'weights.bin', 'state.json']) expect(urls.has(`teachers/${env}/${f}`)).toBe(true);
    }
    // every file of the recorded runs (public/demo/manifest.json lists them), each with its revision: the teachers
    // and recordings are cached on first use, keyed by revision (serviceWorker.ts)
    const demo = JSON.parse(readFileSync(join(ROOT, 'public/demo/manifest.json'), 'utf8')) as {
      arms: { preset: string; files: { path: string }[] }[];
    };
    expect(urls.has('demo/manifest.json')).toBe(true);
    for (const a of demo.arms)
      for (const f of a.files) expect(urls.has(`demo/${a.preset}/${f.path}`), f.path).toBe(true);
  });

  it('is served at a sub-path with no isolation headers, and is cross-origin isolated after one reload', async () => {
    const res = await fetch(`http://127.0.0.1:${port}${BASE}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cross-origin-opener-policy')).toBeNull();
    expect(res.headers.get('cross-origin-embedder-policy')).toBeNull();
    // GitHub Pages' way with a folder path lacking its slash, and nothing outside the base
    expect((await fetch(`http://127.0.0.1:${port}/retirelab`, { redirect: 'manual' })).headers.get('location')).toBe(
      BASE,
    );
    expect((await fetch(`http://127.0.0.1:${port}/index.html`)).status).toBe(404);

    await page.goto(`http://127.0.0.1:${port}${BASE}#train`);
    await expect.poll(() => isolated(page), { timeout: 120_000, interval: 250 }).toBe(true);
    await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
    expect(documents, 'the first visit, then exactly one reload by the service worker').toBe(2);
    const isolation = page.getByTestId('isolation-status');
    expect(await isolation.getAttribute('data-state')).toBe('isolated');
    expect(await isolation.textContent()).toContain('service worker');
    expect(await page.getByTestId('app-version').textContent()).toMatch(
      /^RetireLab v\d+\.\d+\.\d+ · ([0-9a-f]{7}\+?|\d{8}T\d{4})$/,
    );
  }, 300_000);

  it('trains the smoke preset on threaded wasm, and Step advances exactly one step', async () => {
    await trainSmoke(page);
    const badge = page.getByTestId('run-wasm');
    await badge.waitFor({ timeout: 120_000 });
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    threadedBadge = cores >= 2 ? `threaded-simd × ${cores} threads` : 'simd × 1 thread';
    expect(await badge.textContent()).toBe(threadedBadge);
    await expect.poll(() => status().textContent(), { timeout: 60_000, interval: 50 }).toBe('running');
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => status().textContent(), { timeout: 60_000 }).toBe('paused');
    const step = page.getByTestId('step-button');
    expect(await step.isEnabled()).toBe(true);
    const before = await position(page);
    await step.click();
    await expect
      .poll(
        async () =>
          (await status().textContent()) === 'paused' &&
          JSON.stringify(await position(page).catch(() => before)) !== JSON.stringify(before),
        { timeout: 60_000, interval: 100 },
      )
      .toBe(true);
    const after = await position(page);
    // one step on in the same stage, or step 1 of the next stage that has steps
    if (after.stage === before.stage) expect(after.step).toBe(before.step + 1);
    else {
      expect(STAGES.indexOf(after.stage)).toBeGreaterThan(STAGES.indexOf(before.stage));
      expect(after.step).toBe(1);
    }
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => status().textContent(), { timeout: 300_000, interval: 500 }).toBe('completed');
    await expect.poll(() => rows().count(), { timeout: 30_000 }).toBe(1);
    firstRunId = (await rows().first().getAttribute('data-run-id')) ?? '';
    expect(firstRunId).not.toBe('');
    expect(pageErrors).toEqual([]);
  }, 600_000);

  it('loads, stays isolated and trains again with the server stopped; the stored run is still listed', async () => {
    // used online once (the Overview plays a recording, a retire-* run loads its teacher): cached on first use
    const used = [
      'demo/retire-shell/metrics.jsonl',
      'teachers/shell/manifest.json',
      'teachers/shell/model.json',
      'teachers/shell/weights.bin',
      'teachers/shell/state.json',
    ];
    const fetchAll = (urls: string[]) =>
      page.evaluate(
        async (list) =>
          Promise.all(
            list.map(async (u) => {
              try {
                const r = await fetch(new URL(u, location.href));
                return [u, r.status, (await r.arrayBuffer()).byteLength] as const;
              } catch {
                return [u, 0, 0] as const;
              }
            }),
          ),
        urls,
      );
    const online = await fetchAll(used);
    for (const [url, code] of online) expect(code, url).toBe(200);
    await server?.close();
    server = null;
    await expect(fetch(`http://127.0.0.1:${port}${BASE}`)).rejects.toThrow();

    await page.reload();
    await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
    expect(await isolated(page)).toBe(true);
    const first = page.locator(`[data-testid="run-row"][data-run-id="${firstRunId}"]`);
    await expect.poll(() => first.getAttribute('data-status'), { timeout: 60_000 }).toBe('completed');
    // the shipped teachers and both wasm flavours come from the cache too (none of them is used by smoke)
    const cached = await page.evaluate(async () => {
      const wasm = performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((n) => n.endsWith('.wasm'));
      const urls = ['presets/retire-shop.json', ...wasm];
      return Promise.all(urls.map(async (u) => [u, (await fetch(new URL(u, location.href))).status] as const));
    });
    for (const [url, code] of cached) expect(code, url).toBe(200);
    // a recording and a teacher fetched once are served offline, byte for byte; one never used is not there (the
    // first visit precaches only what it needs: teachers and recordings are cached on first use)
    expect(await fetchAll(used)).toEqual(online);
    expect((await fetchAll(['teachers/house/model.json']))[0]?.[1]).toBe(0);

    await trainSmoke(page);
    expect(await page.getByTestId('run-wasm').textContent({ timeout: 120_000 })).toMatch(/^(threaded-simd|simd) × /);
    expect(await page.getByTestId('run-wasm').textContent()).toBe(threadedBadge);
    await expect.poll(() => status().textContent(), { timeout: 300_000, interval: 500 }).toBe('completed');
    await expect.poll(() => rows().count(), { timeout: 30_000 }).toBe(2);
    expect(await first.getAttribute('data-status')).toBe('completed');

    // the worker finds the shipped teacher under the sub-path too: retire-shell, cut to a few seconds, loads it
    const short = [
      'demonstrations.tasks=16',
      'sft.steps=1',
      'student.steps=1',
      'student.validationTasks=4',
      'evaluation.testTasks=4',
    ];
    const link = `#train?preset=retire-shell&backend=wasm&${short.map((x) => `set=${encodeURIComponent(x)}`).join('&')}`;
    await page.goto(`http://127.0.0.1:${port}${BASE}${link}`);
    await expect.poll(() => page.getByLabel('preset', { exact: true }).inputValue()).toBe('retire-shell');
    expect(await page.getByRole('alert').filter({ hasText: 'link:' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    // listed once the worker was asked to start it (startRun): until then the status shown is the smoke run's
    await expect.poll(() => rows().count(), { timeout: 30_000 }).toBe(3);
    await expect
      .poll(() => status().textContent(), { timeout: 300_000, interval: 500 })
      .toMatch(/^(completed|failed|stopped)$/);
    expect(await status().textContent(), (await page.getByRole('alert').allTextContents()).join('\n')).toBe(
      'completed',
    );
    expect(pageErrors).toEqual([]);
  }, 600_000);

  it('offers a new version as "update available — reload", and keeps the stored runs through it', async () => {
    const sw = join(outDir, 'serviceWorker.js');
    writeFileSync(sw, `${readFileSync(sw, 'utf8')}\n// a new version\n`);
    server = await startStaticServer({ dir: outDir, base: BASE, port, host: '127.0.0.1' });
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
    const prompt = page.getByTestId('update-available');
    await prompt.waitFor({ timeout: 60_000 });
    expect(await prompt.textContent()).toContain('update available — reload');
    const loaded = documents;
    await page.getByTestId('update-reload').click();
    await expect.poll(() => documents, { timeout: 60_000 }).toBe(loaded + 1);
    await page.getByRole('heading', { name: 'Train', level: 2 }).waitFor({ timeout: 60_000 });
    await expect.poll(() => rows().count(), { timeout: 60_000 }).toBe(3);
    expect(await page.getByTestId('update-available').count()).toBe(0);
    expect(await isolated(page)).toBe(true);
    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('says service workers are blocked, and binds each worker to the app’s origin: a cross-origin fetch is refused', async () => {
    // no header from this host and no service worker: only the workers' own guard (originGuard.ts) stands
    const hits: string[] = [];
    const other = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'Access-Control-Allow-Origin': '*' }).end('answered');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', resolve));
    const probe = `http://127.0.0.2:${(other.address() as AddressInfo).port}/probe`;
    const browser2 = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_FLAGS],
      headless: true,
    });
    try {
      const blocked = await (await browser2.newContext({ serviceWorkers: 'block' })).newPage();
      blocked.setDefaultTimeout(90_000);
      await blocked.goto(`http://127.0.0.1:${port}${BASE}#train`);
      await blocked.getByTestId('app-version').waitFor();
      // the footer says plainly why there is no offline use (not the TypeError of the refused registration)
      const isolation = blocked.getByTestId('isolation-status');
      await expect.poll(() => isolation.getAttribute('data-state'), { timeout: 60_000 }).toBe('impossible');
      expect(await isolation.textContent()).toBe(
        'offline use unavailable: service workers are blocked in this browser; single-threaded (no shared memory, so no Step)',
      );
      const files = readdirSync(join(outDir, 'assets')).filter((f) =>
        /^(importWorker|replayWorker|trainingWorker)-[\w-]+\.js$/.test(f),
      );
      expect(files.map((f) => f.replace(/-.*/, '')).sort()).toEqual(['importWorker', 'replayWorker', 'trainingWorker']);
      for (const file of files) {
        const started = blocked.waitForEvent('worker');
        await blocked.evaluate((src) => {
          (globalThis as { probeWorkers?: Worker[] }).probeWorkers ??= [];
          (globalThis as { probeWorkers?: Worker[] }).probeWorkers!.push(new Worker(src, { type: 'module' }));
        }, `${BASE}assets/${file}`);
        const worker = await started;
        // the entry has run (it sets onmessage last): the app's own code runs only from here on
        await expect
          .poll(() => worker.evaluate(() => (self as unknown as { onmessage: unknown }).onmessage !== null), {
            timeout: 60_000,
          })
          .toBe(true);
        const outcome = await worker.evaluate(
          (url) =>
            fetch(url).then(
              (r) => `answered ${r.status}`,
              (e: unknown) => `refused: ${String(e)}`,
            ),
          probe,
        );
        expect(outcome, file).toBe(`refused: OffOriginError: refused: ${probe} is not on this app's origin`);
        // and a same-origin fetch still works
        expect(await worker.evaluate(() => fetch('../presets/smoke.json').then((r) => r.status))).toBe(200);
      }
      expect(hits).toEqual([]);
    } finally {
      await browser2.close();
      await new Promise((resolve) => other.close(resolve));
    }
  }, 300_000);

  it('says why it stays single-threaded where no service worker may run, and still trains smoke on one thread', async () => {
    const other = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_FLAGS], headless: true });
    try {
      const blocked = await (await other.newContext({ serviceWorkers: 'block' })).newPage();
      blocked.setDefaultTimeout(90_000);
      await blocked.goto(`http://127.0.0.1:${port}${BASE}#train`);
      const isolation = blocked.getByTestId('isolation-status');
      await expect.poll(() => isolation.getAttribute('data-state'), { timeout: 60_000 }).toBe('impossible');
      const why = (await isolation.textContent()) ?? '';
      // a plain line, never the TypeError that the blocked registration caused
      expect(why).toBe(
        'offline use unavailable: service workers are blocked in this browser; single-threaded (no shared memory, so no Step)',
      );
      expect(await isolated(blocked)).toBe(false);
      await trainSmoke(blocked);
      expect(await blocked.getByTestId('run-wasm').textContent({ timeout: 120_000 })).toBe('simd × 1 thread');
      expect(await blocked.getByTestId('step-unavailable').textContent()).toBe(why);
      expect(await blocked.getByTestId('step-button').isDisabled()).toBe(true);
      await expect
        .poll(() => blocked.getByTestId('run-status').textContent(), { timeout: 300_000, interval: 500 })
        .toBe('completed');
    } finally {
      await other.close();
    }
  }, 400_000);
});
