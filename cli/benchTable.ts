// `npm run bench:table -- [--steps N] [--warmup N] [--rollouts N] [--anchor-python PATH] [--chromium PATH]
//   [--no-browser] [--dry-run]`
// Regenerates the measured table of docs/benchmarks.md (between its bench-table markers) and the README's one-line
// summary (between its bench-line markers) from ONE sitting: W1 (a training step) and W2 with the KV cache on wasm,
// first in Node (single-threaded: tfjs 4.22 has no threaded wasm in Node), then in headless Chromium as the tab runs
// them (cli/chromiumBench.ts: the threaded build on one thread per core, and the single-threaded build), then the
// PyTorch anchor on the same workloads, one after the other. Every table states the machine (CPU model, cores, load
// average before and after), the versions (Node, Chromium, tfjs, torch and their thread counts) and the date.
// --no-browser leaves the Chromium rows out; --dry-run prints the new sections instead of writing them.
import * as tf from '@tensorflow/tfjs';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initBackend, wasmRuntimeInfo } from '../src/engine/backend';
import { runWorkloads, type Workload } from '../src/engine/benchWorkloads';
import { CHROMIUM_PATH } from './chromium';
import { benchInChromium } from './chromiumBench';
import { anchorReport } from './pytorchAnchor';
import { at, benchTableText, chromiumVersion, num, type LabRun } from './benchTableText';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOC = join(ROOT, 'docs', 'benchmarks.md');
const README = join(ROOT, 'README.md');
const TABLE_MARKERS = ['<!-- bench-table:begin -->', '<!-- bench-table:end -->'] as const;
const LINE_MARKERS = ['<!-- bench-line:begin -->', '<!-- bench-line:end -->'] as const;
const WORKLOADS: readonly Workload[] = ['w1', 'w2cached'];

interface Args {
  steps: number;
  warmup: number;
  rollouts: number;
  anchorPython: string;
  chromium: string;
  browser: boolean;
  dryRun: boolean;
}

function parseArgs(argv: string[]): Args {
  // Debian's torch lives in the system python; a pyenv/venv python3 first on PATH usually lacks it
  const args: Args = {
    steps: 10,
    warmup: 3,
    rollouts: 3,
    anchorPython: existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3',
    chromium: CHROMIUM_PATH,
    browser: true,
    dryRun: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    const value = argv[i + 1];
    const int = (): number => {
      const n = Number(value);
      if (!Number.isInteger(n) || n <= 0)
        throw new Error(`${flag} expects a positive integer, got ${value ?? 'nothing'}`);
      i++;
      return n;
    };
    if (flag === '--steps') args.steps = int();
    else if (flag === '--warmup') args.warmup = int();
    else if (flag === '--rollouts') args.rollouts = int();
    else if (flag === '--anchor-python') {
      if (value === undefined) throw new Error('--anchor-python expects a path');
      args.anchorPython = value;
      i++;
    } else if (flag === '--chromium') {
      if (value === undefined) throw new Error('--chromium expects the path of a Chromium executable');
      args.chromium = value;
      i++;
    } else if (flag === '--no-browser') args.browser = false;
    else if (flag === '--dry-run') args.dryRun = true;
    else
      throw new Error(
        `unknown option '${flag}' (options: --steps --warmup --rollouts --anchor-python --chromium --no-browser --dry-run)`,
      );
  }
  return args;
}

/** Replaces the text between two marker lines of a file (markers kept); throws naming the file if one is missing. */
function replaceBetween(file: string, text: string, [begin, end]: readonly [string, string], body: string): string {
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${file}: markers ${begin} … ${end} not found`);
  return `${text.slice(0, i + begin.length)}\n${body}\n${text.slice(j)}`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.browser && !existsSync(args.chromium))
    throw new Error(
      `no Chromium at ${args.chromium}: install it (apt-get install chromium), pass --chromium PATH, or leave the ` +
        `tab's rows out with --no-browser`,
    );
  const loadBefore = loadavg();
  const progress = (m: string): void => void process.stderr.write(`[bench:table] ${m}\n`);
  await initBackend('wasm');
  const wasm = await wasmRuntimeInfo();
  const runs: LabRun[] = [
    {
      where: 'Node, wasm',
      result: { backend: 'node-wasm', ...(await runWorkloads({ ...args, seed: 0, workloads: WORKLOADS, progress })) },
      threads: wasm?.threads ?? null,
    },
  ];
  let browserName: string | null = null;
  // what kept a Chromium row out of the table (a backend that did not start, or Chromium failing): said in the
  // table's header, so that the Node rows already measured are still written
  const leftOut: string[] = [];
  if (args.browser) {
    try {
      const browser = await benchInChromium(
        {
          backends: ['wasm-threaded', 'wasm'],
          steps: args.steps,
          rollouts: args.rollouts,
          warmup: args.warmup,
          seed: 0,
          workloads: WORKLOADS,
          explicitCounts: true,
          dev: false,
          chromium: args.chromium,
          chromiumFlags: [],
        },
        progress,
      );
      browserName = chromiumVersion(browser.environment.version);
      for (const result of browser.results) {
        if (result.available === false) {
          leftOut.push(
            `Chromium's ${String(result.backend)} did not start (${String(result.reason ?? 'no reason given')})`,
          );
          continue;
        }
        runs.push({
          where: `Chromium (the tab), wasm`,
          result: { ...result, backend: `chromium-${String(result.backend)}` },
          threads: num(at(result, 'wasm', 'threads')),
        });
      }
    } catch (e) {
      // playwright's launch errors carry its whole call log: the first line says what failed
      const message = (e instanceof Error ? e.message : String(e)).split('\n')[0]!.trim();
      leftOut.push(`Chromium failed (${message})`);
    }
    for (const why of leftOut) progress(`warning: ${why}; its rows are left out`);
  }
  // torch on one thread and on every core, one after the other: which is faster differs by build and by sitting
  // (Debian's torch 1.13 starts with 1 thread, and its OpenBLAS runs threads of its own), so the ratio is to the faster
  const torchThreads = [...new Set([1, cpus().length])];
  const anchors = torchThreads.map((threads) =>
    anchorReport({ ...args, seed: 0, workloads: WORKLOADS, anchorThreads: threads }, []),
  );
  const loadAfter = loadavg();
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const cpu = cpus();
  const { table, line } = benchTableText(runs, anchors, {
    date,
    machine: `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} logical cores`,
    load: `load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${loadAfter.map((x) => x.toFixed(2)).join(' ')} after`,
    loadAtStart: loadBefore[0] ?? 0,
    node: process.versions.node,
    browserName,
    tfjs: tf.version.tfjs,
    wasmFlavour: wasm?.flavour ?? '?',
    steps: args.steps,
    warmup: args.warmup,
    rollouts: args.rollouts,
    anchorPython: args.anchorPython,
    torchThreads,
    leftOut,
  });
  if (args.dryRun) {
    console.log(`${table}\n\n${line}`);
    return;
  }
  writeFileSync(DOC, replaceBetween(DOC, readFileSync(DOC, 'utf8'), TABLE_MARKERS, table));
  writeFileSync(README, replaceBetween(README, readFileSync(README, 'utf8'), LINE_MARKERS, line));
  console.log(`${table}\n\n${line}\n\nwrote ${DOC} and ${README}`);
}

main().catch((e: unknown) => {
  console.error(`bench:table: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
