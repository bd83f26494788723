// The trainer on webgpu, end to end, in Node (Dawn on SwiftShader): the smoke preset trains — every stage's
// metrics equal wasm's for the same seed within a stated tolerance at every step, and the gate retires the teacher
// at the same step. This is the user's path (trainer → policy update → optimizer), not only the loss functions:
// before the lab's AddN fix, tf.addN over every gradient exceeded WebGPU's storage-buffer limit and the same run
// reported exactly 0 for every loss and gradient. Slow on a software GPU (~1–3 min).
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentConfig } from '../../../src/core/experiment/config';
import { loadPreset } from '../../../src/core/experiment/preset';
import type { RunSummary } from '../../../src/core/experiment/summary';
import { initBackend, type BackendName } from '../../../src/engine/backend';
import { lookupPreset } from '../../support/presets';
import { runTrainer } from '../helpers/runTrainer';

/** Agreement asked of every metric at every step: |webgpu − wasm| ≤ ATOL + RTOL·|wasm|. */
const RTOL = 1e-3;
const ATOL = 1e-4;

interface Run {
  summary: RunSummary;
  /** `${stage}:${step}` → metrics without wall-clock keys */
  steps: Map<string, Record<string, number>>;
  retirement: number | null;
}

async function runOn(backend: BackendName, config: ExperimentConfig): Promise<Run> {
  await initBackend(backend);
  const { summary, events } = await runTrainer(config);
  const steps = new Map<string, Record<string, number>>();
  let retirement: number | null = null;
  for (const e of events) {
    if (e.type === 'step')
      steps.set(
        `${e.stage}:${e.step}`,
        Object.fromEntries(Object.entries(e.metrics).filter(([k]) => !k.startsWith('time/'))),
      );
    if (e.type === 'retirement') retirement = e.triggerStep;
  }
  return { summary, steps, retirement };
}

describe('the trainer on webgpu', () => {
  let wasm: Run;
  let webgpu: Run;
  beforeAll(async () => {
    const config = { ...loadPreset('smoke', lookupPreset).config, seed: 2 };
    wasm = await runOn('wasm', config);
    webgpu = await runOn('webgpu', config);
  }, 900_000);

  it('completes the smoke preset and retires the teacher at the same step as wasm', () => {
    expect(wasm.summary.status).toBe('completed');
    expect(webgpu.summary.status, webgpu.summary.error ?? '').toBe('completed');
    expect(wasm.retirement).toBe(10);
    expect(webgpu.retirement).toBe(wasm.retirement);
    expect(webgpu.summary.gate.triggerStep).toBe(wasm.summary.gate.triggerStep);
    expect(webgpu.summary.test.successRate).toBeCloseTo(wasm.summary.test.successRate, 6);
  });

  it('reports every metric of every stage and step as wasm does, within the stated tolerance', () => {
    expect([...webgpu.steps.keys()]).toEqual([...wasm.steps.keys()]);
    // sft 8 + teacher 3 + student 20 steps
    expect(wasm.steps.size).toBe(31);
    const worst = { key: '', rel: 0 };
    for (const [at, ref] of wasm.steps) {
      const got = webgpu.steps.get(at)!;
      expect(Object.keys(got).sort(), at).toEqual(Object.keys(ref).sort());
      for (const [k, r] of Object.entries(ref)) {
        const g = got[k] as number;
        const err = Math.abs(g - r);
        if (err > ATOL + RTOL * Math.abs(r)) expect.fail(`${at} ${k}: webgpu ${g} vs wasm ${r}`);
        const rel = err / Math.max(Math.abs(r), 1e-6);
        if (rel > worst.rel) Object.assign(worst, { key: `${at} ${k}`, rel });
      }
    }
    console.log(
      `webgpu vs wasm, worst relative difference over all metrics: ${worst.rel.toExponential(2)} (${worst.key})`,
    );
  });

  it('trains: losses, gradients and the gap are not all zero', () => {
    const student = [...webgpu.steps].filter(([k]) => k.startsWith('student:')).map(([, m]) => m);
    expect(student.some((m) => (m['actor/grad_norm'] ?? 0) > 0)).toBe(true);
    expect(student.every((m) => (m['actor/entropy'] ?? 0) > 0)).toBe(true);
    expect(student.some((m) => (m['opd/teacher_student_gap_mean'] ?? 0) !== 0)).toBe(true);
    const sft = [...webgpu.steps].filter(([k]) => k.startsWith('sft:')).map(([, m]) => m);
    expect(sft.every((m) => (m['sft/loss'] ?? 0) > 0 && (m['sft/action_tokens'] ?? 0) > 0)).toBe(true);
  });
});
