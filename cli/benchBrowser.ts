// `npm run bench:browser -- [--backends webgpu,webgl,wasm-threaded,wasm] [--steps N] [--rollouts N] [--warmup N]
//   [--workloads w1,w2cached,w2uncached,loss] [--seed N] [--threads N] [--dev] [--chromium PATH] [--chromium-flag F]
//   [--anchor] [--anchor-python PATH] [--anchor-threads N]`
// Builds the bench page (bench/browser/, with the app's vite.config.ts: same wasm assets and threaded-wasm setup as
// the app) into a temporary folder, serves it with Vite's preview server (cross-origin isolated), and runs the
// shared workloads (src/engine/benchWorkloads.ts, the same code as `npm run bench`) inside a worker in headless
// Chromium, one fresh worker per backend. Prints one JSON object per backend on stdout; progress goes to stderr.
// --dev serves the page from a Vite dev server instead of a production build (quicker to start, not minified).
// On a machine without a GPU, WebGPU and WebGL run on SwiftShader (CPU emulation): W1 then takes seconds to minutes
// per step (minutes on a busy machine), so the defaults are few steps, and on a software adapter (SwiftShader,
// llvmpipe) only 1 timed step/rollout without warm-up unless --steps/--rollouts/--warmup are given; skip them with
// --backends wasm-threaded,wasm.
// --anchor then runs bench/pytorch_anchor.py (same workloads, PyTorch, CPU) and prints lab/PyTorch ratios from this
// invocation (cli/pytorchAnchor.ts).
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from './chromium';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { build, createServer, preview } from 'vite';
import type { BenchRequest, BrowserBenchBackend } from '../bench/browser/protocol';
import { BROWSER_BENCH_BACKENDS } from '../bench/browser/protocol';
import { parseWorkloads, WORKLOADS, type Workload } from '../src/engine/benchWorkloads';
import { anchorReport } from './pytorchAnchor';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PAGE = 'bench/browser/index.html';
const USAGE =
  'usage: npm run bench:browser -- [--backends webgpu,webgl,wasm-threaded,wasm,cpu] [--steps N] [--rollouts N] ' +
  '[--warmup N] [--workloads w1,w2cached,w2uncached,loss] [--seed N] [--threads N] [--dev] [--chromium PATH] ' +
  '[--chromium-flag FLAG] [--anchor] [--anchor-python PATH] [--anchor-threads N]';

interface Args {
  backends: BrowserBenchBackend[];
  steps: number;
  rollouts: number;
  warmup: number;
  seed: number;
  workloads: Workload[];
  threads?: number;
  /** --steps, --rollouts or --warmup given: then software GPUs get them too */
  explicitCounts: boolean;
  dev: boolean;
  chromium: string;
  chromiumFlags: string[];
  anchor: boolean;
  anchorPython: string;
  anchorThreads?: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    backends: ['webgpu', 'webgl', 'wasm-threaded', 'wasm'],
    steps: 3,
    rollouts: 2,
    warmup: 1,
    seed: 0,
    workloads: [...WORKLOADS],
    explicitCounts: false,
    dev: false,
    chromium: CHROMIUM_PATH,
    chromiumFlags: [],
    anchor: false,
    anchorPython: 'python3',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    const value = argv[i + 1];
    const text = (what: string): string => {
      if (value === undefined) throw new Error(`${flag} expects ${what}`);
      i++;
      return value;
    };
    const int = (min: number): number => {
      const n = Number(value);
      if (value === undefined || !Number.isInteger(n) || n < min)
        throw new Error(`${flag} expects an integer ≥ ${min}, got ${value ?? 'nothing'}`);
      i++;
      return n;
    };
    if (flag === '--backends') {
      args.backends = text('a comma-separated list, e.g. wasm-threaded,wasm')
        .split(',')
        .filter(Boolean)
        .map((b) => {
          if (!(BROWSER_BENCH_BACKENDS as readonly string[]).includes(b))
            throw new Error(`unknown backend '${b}' (expected ${BROWSER_BENCH_BACKENDS.join(', ')})`);
          return b as BrowserBenchBackend;
        });
    } else if (flag === '--steps') [args.steps, args.explicitCounts] = [int(1), true];
    else if (flag === '--rollouts') [args.rollouts, args.explicitCounts] = [int(1), true];
    else if (flag === '--warmup') [args.warmup, args.explicitCounts] = [int(0), true];
    else if (flag === '--seed') args.seed = int(0);
    else if (flag === '--threads') args.threads = int(1);
    else if (flag === '--workloads') args.workloads = parseWorkloads(text(`a list of ${WORKLOADS.join(', ')}`));
    else if (flag === '--dev') args.dev = true;
    else if (flag === '--chromium') args.chromium = text('the path of a Chromium executable');
    else if (flag === '--chromium-flag') args.chromiumFlags.push(text('a Chromium command-line flag'));
    else if (flag === '--anchor') args.anchor = true;
    else if (flag === '--anchor-python') args.anchorPython = text('the path of a python3 that can import torch');
    else if (flag === '--anchor-threads') args.anchorThreads = int(1);
    else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown option '${flag}'\n${USAGE}`);
  }
  return args;
}

const log = (msg: string): void => void process.stderr.write(`[bench:browser] ${msg}\n`);

/** Serves the bench page: a production build under Vite's preview server, or the dev server with --dev. */
async function servePage(dev: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const configFile = join(ROOT, 'vite.config.ts');
  const scratch = mkdtempSync(join(tmpdir(), 'retirelab-bench-'));
  const cleanup = () => rmSync(scratch, { recursive: true, force: true });
  if (dev) {
    const server = await createServer({
      root: ROOT,
      configFile,
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
        cleanup();
      },
    };
  }
  const outDir = join(scratch, 'dist');
  log('building the bench page (vite build) …');
  const t0 = performance.now();
  await build({
    root: ROOT,
    configFile,
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, rollupOptions: { input: join(ROOT, PAGE) } },
  });
  log(`built in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const server = await preview({
    root: ROOT,
    configFile,
    logLevel: 'error',
    build: { outDir },
    preview: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  const address = server.httpServer.address();
  if (!address || typeof address === 'string') throw new Error('the Vite preview server reported no port');
  return {
    url: `http://127.0.0.1:${address.port}/${PAGE}`,
    close: async () => {
      await server.close();
      cleanup();
    },
  };
}

/** Headless Chromium with the flags that expose WebGPU (docs/platform-notes.md; never --disable-software-rasterizer). */
async function launch(
  executablePath: string,
  extra: string[],
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

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const page = await servePage(args.dev);
  let browser: Awaited<ReturnType<typeof launch>> | undefined;
  const results: Record<string, unknown>[] = [];
  try {
    browser = await launch(args.chromium, args.chromiumFlags);
    const tab = browser.context.pages()[0] ?? (await browser.context.newPage());
    tab.on('console', (m) => log(m.text()));
    tab.on('pageerror', (e) => log(`page error: ${e.message}`));
    await tab.goto(page.url);
    await tab.waitForFunction(() => (globalThis as { retireBench?: { ready: boolean } }).retireBench?.ready === true);
    const environment = await tab.evaluate(() => {
      const b = (globalThis as unknown as { retireBench: Record<string, unknown> }).retireBench;
      return {
        crossOriginIsolated: b.crossOriginIsolated,
        hardwareConcurrency: b.hardwareConcurrency,
        userAgent: b.userAgent,
      };
    });
    log(`page ${page.url} ${JSON.stringify(environment)}`);
    for (const backend of args.backends) {
      const request: BenchRequest = {
        backend,
        threads: args.threads,
        softwareGpuMinimal: !args.explicitCounts,
        options: {
          steps: args.steps,
          rollouts: args.rollouts,
          warmup: args.warmup,
          seed: args.seed,
          workloads: args.workloads,
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
      console.log(JSON.stringify({ ...result, browser: environment, build: args.dev ? 'dev' : 'production' }, null, 2));
    }
  } finally {
    await browser?.close();
    await page.close();
  }
  if (args.anchor) console.log(JSON.stringify(anchorReport(args, results), null, 2));
}

main().catch((e: unknown) => {
  console.error(`bench:browser: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
