// What `npm run bench:table` writes (cli/benchTableText.ts): one row per lab run and workload, torch on each thread
// count it ran with, and every ratio to the faster torch median of that workload, checked against hand-computed
// figures; Chromium rows that did not run and a missing PyTorch are said, not hidden.
import { describe, expect, it } from 'vitest';
import { benchTableText, chromiumVersion, type BenchTableMeta, type LabRun } from '../../cli/benchTableText';

const stat = (medianMs: number, extra: Record<string, unknown> = {}) => ({
  medianMs,
  minMs: medianMs - 10,
  maxMs: medianMs + 10,
  ...extra,
});
const lab = (backend: string, where: string, threads: number, w1: number, w2: number): LabRun => ({
  where,
  threads,
  result: {
    backend,
    w1_train_step: stat(w1, { kernelsPerStep: 445 }),
    w2_rollout: { cached: stat(w2, { kernelsPerRollout: 4035 }) },
  },
});
const NODE = lab('node-wasm', 'Node, wasm', 1, 500, 200);
const THREADED = lab('chromium-wasm-threaded', 'Chromium (the tab), wasm', 2, 360, 190);
const SINGLE = lab('chromium-wasm', 'Chromium (the tab), wasm', 1, 460, 180);
const torch = (threads: number, w1: number, w2: number) => ({
  available: true,
  torch: '1.13.0a0',
  threads,
  w1_train_step: stat(w1),
  w2_rollout: { cached: stat(w2) },
});
const META: BenchTableMeta = {
  date: '2026-12-05T03:01:11Z',
  machine: 'AMD EPYC, 2 logical cores',
  load: 'load average 1.25 1.90 1.90 before, 1.50 1.87 1.89 after',
  loadAtStart: 1.25,
  node: '20.20.2',
  browserName: 'Chromium 156.0.8078.114',
  tfjs: '4.22.0',
  wasmFlavour: 'simd',
  steps: 10,
  warmup: 3,
  rollouts: 3,
  anchorPython: '/usr/bin/python3',
  torchThreads: [1, 2],
  leftOut: [],
};
const rows = (table: string): string[] => table.split('\n').filter((l) => /^\| W[12] /.test(l));

describe('the bench table', () => {
  it('divides each workload by the faster torch median: here 1 thread for W1 (200 ms) and 2 threads for W2 (70 ms)', () => {
    const { table } = benchTableText([NODE, THREADED, SINGLE], [torch(1, 200, 80), torch(2, 300, 70)], META);
    expect(rows(table)).toEqual([
      '| W1 train step | Node, wasm, 1 thread | 500 (490–510) | 445 | 200 (190–210) | 300 (290–310) | 2.50 |',
      '| W1 train step | Chromium (the tab), wasm, 2 threads | 360 (350–370) | 445 | 200 (190–210) | 300 (290–310) | 1.80 |',
      '| W1 train step | Chromium (the tab), wasm, 1 thread | 460 (450–470) | 445 | 200 (190–210) | 300 (290–310) | 2.30 |',
      '| W2 rollout, KV cache | Node, wasm, 1 thread | 200 (190–210) | 4,035 | 80 (70–90) | 70 (60–80) | 2.86 |',
      '| W2 rollout, KV cache | Chromium (the tab), wasm, 2 threads | 190 (180–200) | 4,035 | 80 (70–90) | 70 (60–80) | 2.71 |',
      '| W2 rollout, KV cache | Chromium (the tab), wasm, 1 thread | 180 (170–190) | 4,035 | 80 (70–90) | 70 (60–80) | 2.57 |',
    ]);
    expect(table).toContain(
      '| workload | lab | lab ms | kernels | PyTorch CPU ms, 1 thread | PyTorch CPU ms, 2 threads | lab ÷ faster PyTorch |',
    );
    expect(table).toContain('Chromium 156.0.8078.114 (headless)');
    expect(table).toContain('torch 1.13.0a0 via /usr/bin/python3 on 1 thread and then on 2 threads');
  });

  it("puts the tab's threaded figure first and in bold in the README's line, with torch's faster W1", () => {
    const { line } = benchTableText([NODE, THREADED, SINGLE], [torch(1, 200, 80), torch(2, 300, 70)], META);
    expect(line).toBe(
      "W1 (one training step of the reference model, 445 kernels) on wasm against torch 1.13.0a0's 200 ms " +
        '(1 thread, the faster) on the same CPU: **360 ms (1.80×)** in Chromium 156.0.8078.114 with 2 threads, ' +
        '460 ms (2.30×) in Chromium 156.0.8078.114 with one, 500 ms (2.50×) in Node (one thread) ' +
        '(2026-12-05, AMD EPYC, 2 logical cores, load 1.25; `npm run bench:table`).',
    );
  });

  it('says which Chromium rows were left out and why, and leads with what did run', () => {
    const { table, line } = benchTableText([NODE, SINGLE], [torch(1, 200, 80), torch(2, 300, 70)], {
      ...META,
      leftOut: ["Chromium's wasm-threaded did not start (not cross-origin isolated)"],
    });
    expect(table).toContain("Left out: Chromium's wasm-threaded did not start (not cross-origin isolated).");
    expect(rows(table)).toHaveLength(4);
    expect(line).toContain(': **460 ms (2.30×)** in Chromium 156.0.8078.114 with one, 500 ms (2.50×) in Node');
  });

  it('without PyTorch gives no ratios and names the reason', () => {
    const missing = { available: false, reason: '/usr/bin/python3: No module named torch' };
    const { table, line } = benchTableText([NODE], [missing, missing], { ...META, browserName: null });
    expect(table).toContain('no PyTorch (/usr/bin/python3: No module named torch)');
    expect(rows(table)[0]).toBe('| W1 train step | Node, wasm, 1 thread | 500 (490–510) | 445 | – | – | – |');
    expect(line).toContain('on wasm: **500 ms** in Node (one thread)');
    expect(line).not.toContain('against');
  });

  it("reads Chromium's full version from what `chromium --version` prints", () => {
    expect(chromiumVersion('Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)')).toBe(
      'Chromium 156.0.8078.114',
    );
    expect(chromiumVersion('nothing useful')).toBe('Chromium ?');
  });
});
