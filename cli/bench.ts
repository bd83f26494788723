// `npm run bench -- [--backends cpu,wasm,webgpu] [--steps N] [--rollouts N] [--warmup N]
//   [--workloads w1,w2cached,w2uncached,loss] [--seed N] [--anchor] [--anchor-python PATH] [--anchor-threads N]`
// (webgpu in Node runs on SwiftShader, a CPU emulation: use e.g. --steps 2 --rollouts 1 --warmup 1 there)
// Prints one JSON object per available backend for the reference workloads of src/engine/benchWorkloads.ts (the
// same code `npm run bench:browser` runs in Chromium). Timings are wall-clock ms (median/min/max after warm-up).
// --anchor also runs bench/pytorch_anchor.py (the same workloads in PyTorch on the CPU), prints its JSON, and adds
// lab/PyTorch ratios measured in this invocation; without it, or without an importable torch, there are no ratios.
import * as tf from '@tensorflow/tfjs';
import {
  BackendUnavailableError,
  initBackend,
  parseBackendName,
  wasmRuntimeInfo,
  type BackendName,
} from '../src/engine/backend';
import { parseWorkloads, runWorkloads, WORKLOADS, type Workload } from '../src/engine/benchWorkloads';
import { anchorReport } from './pytorchAnchor';

const USAGE =
  'usage: npm run bench -- [--backends cpu,wasm,webgpu] [--steps N] [--rollouts N] [--warmup N] ' +
  `[--workloads ${WORKLOADS.join(',')}] [--seed N] [--anchor] [--anchor-python PATH] [--anchor-threads N]`;

interface Args {
  backends: BackendName[];
  steps: number;
  rollouts: number;
  seed: number;
  warmup: number;
  workloads: Workload[];
  anchor: boolean;
  anchorPython: string;
  anchorThreads?: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    backends: ['cpu', 'wasm', 'webgpu'],
    steps: 10,
    rollouts: 3,
    seed: 0,
    warmup: 3,
    workloads: [...WORKLOADS],
    anchor: false,
    anchorPython: 'python3',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    const value = argv[i + 1];
    const int = (): number => {
      const n = Number(value);
      if (value === undefined || !Number.isInteger(n) || n <= 0)
        throw new Error(`${flag} expects a positive integer, got ${value ?? 'nothing'}`);
      i++;
      return n;
    };
    const text = (what: string): string => {
      if (value === undefined) throw new Error(`${flag} expects ${what}`);
      i++;
      return value;
    };
    if (flag === '--backends') {
      args.backends = text('a comma-separated list, e.g. cpu,wasm,webgpu')
        .split(',')
        .filter(Boolean)
        .map(parseBackendName);
    } else if (flag === '--steps') args.steps = int();
    else if (flag === '--rollouts') args.rollouts = int();
    else if (flag === '--seed') args.seed = int();
    else if (flag === '--warmup') args.warmup = int();
    else if (flag === '--workloads') args.workloads = parseWorkloads(text(`a list of ${WORKLOADS.join(', ')}`));
    else if (flag === '--anchor') args.anchor = true;
    else if (flag === '--anchor-python') args.anchorPython = text('the path of a python3 that can import torch');
    else if (flag === '--anchor-threads') args.anchorThreads = int();
    else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown option '${flag}'\n${USAGE}`);
  }
  return args;
}

/** progress on stderr, so stdout stays pure JSON */
function progress(msg: string): void {
  process.stderr.write(`[bench ${tf.getBackend()}] ${msg}\n`);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const results: Record<string, unknown>[] = [];
  for (const backend of args.backends) {
    try {
      await initBackend(backend);
    } catch (e) {
      if (!(e instanceof BackendUnavailableError)) throw e;
      console.log(JSON.stringify({ backend, available: false, reason: e.message }));
      continue;
    }
    const wasm = await wasmRuntimeInfo(); // null unless wasm: which binary and how many threads
    const result = {
      backend,
      available: true,
      tfjs: tf.version.tfjs,
      ...(wasm ? { wasm } : {}),
      ...(await runWorkloads({ ...args, progress })),
    };
    results.push(result);
    console.log(JSON.stringify(result, null, 2));
  }
  if (args.anchor) console.log(JSON.stringify(anchorReport(args, results), null, 2));
}

main().catch((e: unknown) => {
  console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
