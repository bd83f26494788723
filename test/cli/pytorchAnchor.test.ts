// The PyTorch anchor's ratios: quoted only when bench/pytorch_anchor.py ran in the same invocation, as lab median /
// PyTorch median per workload both sides measured. A stand-in "python" (a shell script printing fixed JSON) plays
// the anchor, so the test needs no torch.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { anchorReport, type AnchorArgs } from '../../cli/pytorchAnchor';

const dir = mkdtempSync(join(tmpdir(), 'retirelab-anchor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakePython(name: string, stdout: string, exitCode = 0): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho '${stdout}'\nexit ${exitCode}\n`);
  chmodSync(path, 0o755);
  return path;
}

const args = (anchorPython: string): AnchorArgs => ({
  steps: 2,
  rollouts: 1,
  warmup: 1,
  seed: 0,
  workloads: ['w1', 'w2cached', 'loss'],
  anchorPython,
});

const lab = {
  backend: 'wasm',
  w1_train_step: { medianMs: 600 },
  w2_rollout: { cached: { medianMs: 350 } },
  loss_path: 'skipped',
};

describe('anchorReport', () => {
  it('divides each lab median by the PyTorch median of the same workload, for workloads both sides ran', () => {
    const torch = JSON.stringify({
      available: true,
      torch: '1.13.0a0',
      threads: 2,
      w1_train_step: { medianMs: 200 },
      w2_rollout: { cached: { medianMs: 140 } },
      loss_path: { medianMs: 30 },
    });
    const report = anchorReport(args(fakePython('ok.sh', torch)), [lab]);
    expect(report.torch).toBe('1.13.0a0');
    expect(report.threads).toBe(2);
    // 600/200 = 3; 350/140 = 2.5; the lab skipped the loss path, so no ratio for it
    expect(report.labOverPytorch).toEqual({ wasm: { w1: 3, w2cached: 2.5 } });
    expect(typeof report.measuredAt).toBe('string');
  });

  it('gives no ratios when PyTorch is not importable (the anchor exits 3 with available: false)', () => {
    const missing = JSON.stringify({ available: false, reason: "import torch failed: No module named 'torch'" });
    const report = anchorReport(args(fakePython('missing.sh', missing, 3)), [lab]);
    expect(report.available).toBe(false);
    expect(report.labOverPytorch).toBeUndefined();
    expect(String(report.reason)).toContain('torch');
  });

  it('gives no ratios, and says why, when the python executable does not exist', () => {
    const report = anchorReport(args(join(dir, 'no-such-python')), [lab]);
    expect(report.available).toBe(false);
    expect(report.labOverPytorch).toBeUndefined();
    expect(String(report.reason)).toContain('could not start');
  });
});
