// The PyTorch anchor of the benchmarks (`npm run bench -- --anchor`, `npm run bench:browser -- --anchor`): runs
// bench/pytorch_anchor.py — the same workloads in PyTorch on this machine's CPU — with the bench's options, and
// reports lab/PyTorch ratios only for workloads both sides measured in this invocation. No torch, no ratios.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Workload } from '../src/engine/benchWorkloads';

const ANCHOR_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '..', 'bench', 'pytorch_anchor.py');

export interface AnchorArgs {
  steps: number;
  rollouts: number;
  warmup: number;
  seed: number;
  workloads: readonly Workload[];
  /** the python3 that can import torch */
  anchorPython: string;
  /** torch.set_num_threads (default: the machine's CPU count) */
  anchorThreads?: number;
}

/** Runs bench/pytorch_anchor.py with the same options; its JSON, or {available: false, reason}. */
function runAnchor(args: AnchorArgs): Record<string, unknown> {
  const argv = [
    ANCHOR_SCRIPT,
    '--steps',
    String(args.steps),
    '--rollouts',
    String(args.rollouts),
    '--warmup',
    String(args.warmup),
    '--seed',
    String(args.seed),
    '--workloads',
    args.workloads.join(','),
    ...(args.anchorThreads === undefined ? [] : ['--threads', String(args.anchorThreads)]),
  ];
  process.stderr.write(`[bench pytorch] ${args.anchorPython} ${argv.join(' ')}\n`);
  const r = spawnSync(args.anchorPython, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.error) return { available: false, reason: `${args.anchorPython} could not start: ${r.error.message}` };
  const last = r.stdout.trim().split('\n').pop() ?? '';
  try {
    const parsed = JSON.parse(last) as Record<string, unknown>;
    if (r.status !== 0 && parsed.available !== false) parsed.available = false;
    return parsed;
  } catch {
    return { available: false, reason: `${ANCHOR_SCRIPT} exited ${r.status} without JSON: ${last.slice(0, 200)}` };
  }
}

const median = (x: unknown, ...path: string[]): number | undefined => {
  let v: unknown = x;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  const m = v !== null && typeof v === 'object' ? (v as { medianMs?: unknown }).medianMs : undefined;
  return typeof m === 'number' ? m : undefined;
};

/** lab median / PyTorch median for each workload both sides measured in this invocation. */
function ratios(lab: Record<string, unknown>, torch: Record<string, unknown>): Record<string, number> {
  const pairs: [string, string[]][] = [
    ['w1', ['w1_train_step']],
    ['w2cached', ['w2_rollout', 'cached']],
    ['w2uncached', ['w2_rollout', 'uncached']],
    ['loss', ['loss_path']],
  ];
  const out: Record<string, number> = {};
  for (const [name, path] of pairs) {
    const a = median(lab, ...path);
    const b = median(torch, ...path);
    if (a !== undefined && b !== undefined && b > 0) out[name] = Math.round((a / b) * 100) / 100;
  }
  return out;
}

/** The anchor's JSON with the time it ran and, when it ran, each lab result's ratio to it (key: the result's backend). */
export function anchorReport(
  args: AnchorArgs,
  labResults: readonly Record<string, unknown>[],
): Record<string, unknown> {
  const torch = runAnchor(args);
  const measuredAt = new Date().toISOString();
  if (torch.available !== true) {
    return { anchor: 'pytorch', measuredAt, ...torch, note: 'no ratios: PyTorch did not run here' };
  }
  const labOverPytorch = Object.fromEntries(labResults.map((r) => [String(r.backend), ratios(r, torch)]));
  return { anchor: 'pytorch', measuredAt, ...torch, labOverPytorch };
}
