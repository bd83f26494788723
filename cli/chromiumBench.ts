// The browser half of the benchmarks, shared by `npm run bench:browser` and `npm run bench:table`: builds the bench
// page (bench/browser/, with the app's vite.config.ts: the same wasm assets and threaded-wasm setup as the app) into a
// temporary folder, serves it with Vite's preview server (cross-origin isolated, as the app's servers are), and runs
// the shared workloads (src/engine/benchWorkloads.ts, the same code as `npm run bench`) inside a worker in headless
// Chromium, one fresh worker per backend (tfjs-wasm picks its binary, threaded or not, once per realm). Node only.
import { CHROMIUM_FLAGS } from './chromium';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { createServer } from 'vite';
import { buildAndPreview, ROOT } from './vitePreview';
import type { BenchRequest, BrowserBenchBackend } from '../bench/browser/protocol';
import type { Workload } from '../src/engine/benchWorkloads';

const PAGE = 'bench/browser/index.html';

export interface ChromiumBenchOptions {
  backends: readonly BrowserBenchBackend[];
  steps: number;
  rollouts: number;
  warmup: number;
  seed: number;
  workloads: readonly Workload[];
  /** wasm-threaded: threads to request (default: the page's navigator.hardwareConcurrency) */
  threads?: number;
  /** the counts were given: software GPUs get them too (otherwise 1 step, 1 rollout, no warm-up there) */
  explicitCounts: boolean;
  /** serve the page from a Vite dev server instead of a production build */
  dev: boolean;
  /** the Chromium executable */
  chromium: string;
  chromiumFlags: readonly string[];
}

/** What the page reported of its browser, and one result per backend (the worker's JSON), in the order asked. */
export interface ChromiumBenchRun {
  environment: {
    crossOriginIsolated: unknown;
    hardwareConcurrency: unknown;
    userAgent: unknown;
    /** what the executable says of itself (`chromium --version`: the full version the user agent no longer gives) */
    version: string;
  };
  results: Record<string, unknown>[];
}

/** Serves the bench page: a production build under Vite's preview server, or the dev server with --dev. */
async function servePage(
  dev: boolean,
  log: (message: string) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  if (!dev) {
    log('building the bench page (vite build) …');
    const t0 = performance.now();
    const server = await buildAndPreview({ page: PAGE, buildLogLevel: 'warn' });
    log(`built in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    return { url: `${server.url}${PAGE}`, close: () => server.close() };
  }
  const scratch = mkdtempSync(join(tmpdir(), 'retirelab-bench-'));
  const server = await createServer({
    root: ROOT,
    configFile: join(ROOT, 'vite.config.ts'),
    cacheDir: join(scratch, 'vite-cache'),
    logLevel: 'error',
    server: { host: '127.0.0.1', port: 0, hmr: false },
    optimizeDeps: { entries: [PAGE, 'bench/browser/benchWorker.ts'] },
  });
  await server.listen();
  const address = server.httpServer?.address();
  if (!address || typeof address === 'string') throw new Error('the Vite dev server reported no port');
  return {
    url: `http://127.0.0.1:${address.port}/${PAGE}`,
    close: async () => {
      await server.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** Headless Chromium with the flags that expose WebGPU (docs/platform-notes.md; never --disable-software-rasterizer). */
async function launch(
  executablePath: string,
  extra: readonly string[],
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath} (apt-get install chromium, or pass --chromium PATH)`);
  }
  const userDataDir = mkdtempSync(join(tmpdir(), 'retirelab-bench-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: [...CHROMIUM_FLAGS, ...extra],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/**
 * Runs the workloads of `opts` in headless Chromium, each backend in a fresh worker; `log` gets progress lines (the
 * page's console among them) and `onResult` each backend's result as soon as it is in.
 */
export async function benchInChromium(
  opts: ChromiumBenchOptions,
  log: (message: string) => void,
  onResult: (result: Record<string, unknown>, environment: ChromiumBenchRun['environment']) => void = () => {},
): Promise<ChromiumBenchRun> {
  const page = await servePage(opts.dev, log);
  let browser: Awaited<ReturnType<typeof launch>> | undefined;
  const results: Record<string, unknown>[] = [];
  try {
    browser = await launch(opts.chromium, opts.chromiumFlags);
    const tab = browser.context.pages()[0] ?? (await browser.context.newPage());
    tab.on('console', (m) => log(m.text()));
    tab.on('pageerror', (e) => log(`page error: ${e.message}`));
    await tab.goto(page.url);
    await tab.waitForFunction(() => (globalThis as { retireBench?: { ready: boolean } }).retireBench?.ready === true);
    const reported = await tab.evaluate(() => {
      const b = (globalThis as unknown as { retireBench: Record<string, unknown> }).retireBench;
      return {
        crossOriginIsolated: b.crossOriginIsolated,
        hardwareConcurrency: b.hardwareConcurrency,
        userAgent: b.userAgent,
      };
    });
    const version = execFileSync(opts.chromium, ['--version'], { encoding: 'utf8' }).trim();
    const environment = { ...reported, version };
    log(`page ${page.url} ${JSON.stringify(environment)}`);
    for (const backend of opts.backends) {
      const request: BenchRequest = {
        backend,
        threads: opts.threads,
        softwareGpuMinimal: !opts.explicitCounts,
        options: {
          steps: opts.steps,
          rollouts: opts.rollouts,
          warmup: opts.warmup,
          seed: opts.seed,
          workloads: [...opts.workloads],
        },
      };
      const t0 = performance.now();
      const result = await tab.evaluate(
        (r) =>
          (
            globalThis as unknown as { retireBench: { run(r: unknown): Promise<Record<string, unknown>> } }
          ).retireBench.run(r),
        request,
      );
      log(`${backend} done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      results.push(result);
      onResult(result, environment);
    }
    return { environment, results };
  } finally {
    await browser?.close();
    await page.close();
  }
}
