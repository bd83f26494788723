// `npm run bench:browser -- [--backends webgpu,webgl,wasm-threaded,wasm] [--steps N] [--rollouts N] [--warmup N]
//   [--workloads w1,w2cached,w2uncached,loss] [--seed N] [--threads N] [--dev] [--chromium PATH] [--chromium-flag F]
//   [--anchor] [--anchor-python PATH] [--anchor-threads N]`
// Runs the shared workloads in headless Chromium, one fresh worker per backend (cli/chromiumBench.ts: the bench page
// built with the app's Vite config and served cross-origin isolated). Prints one JSON object per backend on stdout;
// progress goes to stderr.
// --dev serves the page from a Vite dev server instead of a production build (quicker to start, not minified).
// On a machine without a GPU, WebGPU and WebGL run on SwiftShader (CPU emulation): W1 then takes seconds to minutes
// per step (minutes on a busy machine), so the defaults are few steps, and on a software adapter (SwiftShader,
// llvmpipe) only 1 timed step/rollout without warm-up unless --steps/--rollouts/--warmup are given; skip them with
// --backends wasm-threaded,wasm.
// --anchor then runs bench/pytorch_anchor.py (same workloads, PyTorch, CPU) and prints lab/PyTorch ratios from this
// invocation (cli/pytorchAnchor.ts).
import { CHROMIUM_PATH } from './chromium';
import type { BrowserBenchBackend } from '../bench/browser/protocol';
import { BROWSER_BENCH_BACKENDS } from '../bench/browser/protocol';
import { parseWorkloads, WORKLOADS, type Workload } from '../src/engine/benchWorkloads';
import { benchInChromium } from './chromiumBench';
import { anchorReport } from './pytorchAnchor';

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

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const { results } = await benchInChromium(args, log, (result, environment) =>
    console.log(JSON.stringify({ ...result, browser: environment, build: args.dev ? 'dev' : 'production' }, null, 2)),
  );
  if (args.anchor) console.log(JSON.stringify(anchorReport(args, results), null, 2));
}

main().catch((e: unknown) => {
  console.error(`bench:browser: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
