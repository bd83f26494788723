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

type Json = Record<string, unknown>;
const at = (x: unknown, ...path: string[]): unknown => {
  let v = x;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Json)[p] : undefined;
  return v;
};
const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const fmt = (x: number | null, digits = 0): string =>
  x === null ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const range = (s: unknown): string => {
  const m = num(at(s, 'medianMs'));
  return m === null ? '–' : `${fmt(m)} (${fmt(num(at(s, 'minMs')))}–${fmt(num(at(s, 'maxMs')))})`;
};

/** Replaces the text between two marker lines of a file (markers kept); throws naming the file if one is missing. */
function replaceBetween(file: string, text: string, [begin, end]: readonly [string, string], body: string): string {
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${file}: markers ${begin} … ${end} not found`);
  return `${text.slice(0, i + begin.length)}\n${body}\n${text.slice(j)}`;
}

/** One place the lab ran the workloads: its row label, its result (the anchor's key is `backend`), its thread count. */
interface LabRun {
  where: string;
  result: Json;
  threads: number | null;
}

/** "Chromium 156.0.8078.114" from what `chromium --version` prints ("Chromium 156.0.8078.114 built on Debian …"). */
const chromiumVersion = (version: string): string => `Chromium ${/[\d]+(?:\.\d+)+/.exec(version)?.[0] ?? '?'}`;
const threadsText = (n: number | null): string => (n === null ? '? threads' : `${n} thread${n === 1 ? '' : 's'}`);

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
  const machine = `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} logical cores`;
  const load = `load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${loadAfter.map((x) => x.toFixed(2)).join(' ')} after`;
  const ran = anchors.filter((a) => a.available === true);
  const torch = ran.length > 0 ? `torch ${String(ran[0]!.torch)}` : 'no torch';
  const torchText =
    ran.length > 0
      ? `${torch} via ${args.anchorPython} on ${torchThreads.map(threadsText).join(' and then on ')}`
      : `no PyTorch (${String(anchors[0]?.reason ?? `${args.anchorPython} could not import torch`)})`;
  /** the faster torch on a workload (the smaller median), or null when torch did not run */
  const fasterTorch = (path: string[]): { ms: number; threads: number | null } | null => {
    let best: { ms: number; threads: number | null } | null = null;
    for (const a of ran) {
      const ms = num(at(a, ...path, 'medianMs'));
      if (ms !== null && (best === null || ms < best.ms)) best = { ms, threads: num(a.threads) };
    }
    return best;
  };
  const ratio = (run: LabRun, path: string[]): number | null => {
    const lab = num(at(run.result, ...path, 'medianMs'));
    const best = fasterTorch(path);
    return lab === null || best === null ? null : lab / best.ms;
  };
  const row = (name: string, run: LabRun, path: string[], kernels: string) =>
    `| ${name} | ${run.where}, ${threadsText(run.threads)} | ${range(at(run.result, ...path))} | ` +
    `${fmt(num(at(run.result, ...path, kernels)))} | ` +
    anchors.map((a) => (a.available === true ? range(at(a, ...path)) : '–')).join(' | ') +
    ` | ${fmt(ratio(run, path), 2)} |`;
  const node = runs[0]!;
  const W1 = ['w1_train_step'];
  const W2 = ['w2_rollout', 'cached'];
  const kernels = num(at(node.result, ...W1, 'kernelsPerStep'));
  const table = [
    `Generated by \`npm run bench:table\` on ${date}: ${machine}; ${load}; Node ${process.versions.node}` +
      `${browserName ? `, ${browserName} (headless)` : ''}, tfjs ${tf.version.tfjs} wasm (${wasm?.flavour ?? '?'}), ` +
      `${torchText}, one after the other in that order. ms per step, median (min–max) of ${args.steps} timed W1 ` +
      `steps after ${args.warmup} warm-up steps and of ${args.rollouts} W2 rollouts. The ratio is to the faster ` +
      `torch median.${leftOut.map((why) => ` Left out: ${why}.`).join('')}`,
    '',
    `| workload | lab | lab ms | kernels | ${torchThreads.map((t) => `PyTorch CPU ms, ${threadsText(t)}`).join(' | ')} | lab ÷ faster PyTorch |`,
    `|---|---|---|---|${torchThreads.map(() => '---|').join('')}---|`,
    ...runs.map((r) => row('W1 train step', r, W1, 'kernelsPerStep')),
    ...runs.map((r) => row('W2 rollout, KV cache', r, W2, 'kernelsPerRollout')),
  ].join('\n');
  const w1 = (run: LabRun): string => {
    const r = ratio(run, W1);
    return `${fmt(num(at(run.result, ...W1, 'medianMs')))} ms${r === null ? '' : ` (${fmt(r, 2)}×)`}`;
  };
  const best = fasterTorch(W1);
  const [threaded, single] = runs.slice(1);
  const line =
    `W1 (one training step of the reference model, ${fmt(kernels)} kernels) on wasm` +
    (best ? ` against ${torch}'s ${fmt(best.ms)} ms (${threadsText(best.threads)}, the faster) on the same CPU` : '') +
    ': ' +
    (threaded && single
      ? `**${w1(threaded)}** in ${browserName} with ${threadsText(threaded.threads)}, ${w1(single)} with one, ` +
        `${w1(node)} in Node (one thread)`
      : `**${w1(node)}** in Node (one thread)`) +
    ` (${date.slice(0, 10)}, ${machine}, load ${loadBefore[0]?.toFixed(2)}; \`npm run bench:table\`).`;
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
