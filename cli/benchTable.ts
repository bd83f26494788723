// `npm run bench:table -- [--steps N] [--warmup N] [--rollouts N] [--anchor-python PATH] [--dry-run]`
// Regenerates the measured table of docs/benchmarks.md (between its bench-table markers) and the README's one-line
// summary (between its bench-line markers) from ONE sitting in Node: W1 (a training step) and W2 with the KV cache on
// wasm (single-threaded: Node has no threaded wasm), then the PyTorch anchor on the same workloads.
// Every table states the machine (CPU model, cores, load average before and after), the versions (Node, tfjs,
// torch) and the date. --dry-run prints the new sections instead of writing them.
import * as tf from '@tensorflow/tfjs';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initBackend, wasmRuntimeInfo } from '../src/engine/backend';
import { runWorkloads, type Workload } from '../src/engine/benchWorkloads';
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
  dryRun: boolean;
}

function parseArgs(argv: string[]): Args {
  // Debian's torch lives in the system python; a pyenv/venv python3 first on PATH usually lacks it
  const args: Args = {
    steps: 10,
    warmup: 3,
    rollouts: 3,
    anchorPython: existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3',
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
    } else if (flag === '--dry-run') args.dryRun = true;
    else throw new Error(`unknown option '${flag}' (options: --steps --warmup --rollouts --anchor-python --dry-run)`);
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

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const loadBefore = loadavg();
  const progress = (m: string): void => void process.stderr.write(`[bench:table] ${m}\n`);
  await initBackend('wasm');
  const wasm = await wasmRuntimeInfo();
  const lab: Json = {
    backend: 'wasm',
    ...(await runWorkloads({ ...args, seed: 0, workloads: WORKLOADS, progress })),
  };
  const anchor = anchorReport({ ...args, seed: 0, workloads: WORKLOADS }, [lab]);
  const loadAfter = loadavg();
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const cpu = cpus();
  const machine = `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} logical cores`;
  const load = `load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${loadAfter.map((x) => x.toFixed(2)).join(' ')} after`;
  const torchOk = anchor.available === true;
  const torch = torchOk ? `torch ${String(anchor.torch)} (${String(anchor.threads)} threads)` : 'no torch';
  const ratio = num(at(anchor, 'labOverPytorch', 'wasm', 'w1'));
  const w1 = at(lab, 'w1_train_step');
  const w2 = at(lab, 'w2_rollout', 'cached');
  const kernels = num(at(w1, 'kernelsPerStep'));
  const table = [
    `Generated by \`npm run bench:table\` on ${date}: ${machine}; ${load}; Node ${process.versions.node}, tfjs ` +
      `${tf.version.tfjs} wasm (${wasm?.flavour ?? '?'}, ${wasm?.threads ?? '?'} thread${wasm?.threads === 1 ? '' : 's'}), ` +
      `${torch} via ${args.anchorPython}. ms per step, median (min–max) of ${args.steps} timed W1 steps after ` +
      `${args.warmup} warm-up steps and of ${args.rollouts} W2 rollouts.`,
    '',
    '| workload | lab, Node wasm | kernels per step | PyTorch CPU | lab ÷ PyTorch |',
    '|---|---|---|---|---|',
    `| W1 train step | ${range(w1)} | ${fmt(kernels)} | ${torchOk ? range(at(anchor, 'w1_train_step')) : '–'} | ${ratio === null ? '–' : fmt(ratio, 2)} |`,
    `| W2 rollout, KV cache | ${range(w2)} | ${fmt(num(at(w2, 'kernelsPerRollout')))} per rollout | ${torchOk ? range(at(anchor, 'w2_rollout', 'cached')) : '–'} | ${fmt(num(at(anchor, 'labOverPytorch', 'wasm', 'w2cached')), 2)} |`,
  ].join('\n');
  const line =
    `W1 (one training step of the reference model) in Node on wasm: **${fmt(num(at(w1, 'medianMs')))} ms**, ` +
    `${fmt(kernels)} kernels` +
    (ratio === null ? '' : `, ${fmt(ratio, 2)}× ${torch} on the same CPU`) +
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
