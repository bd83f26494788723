// Read-backs per student step on webgpu (Dawn on SwiftShader in Node), counted, not timed: the smoke preset cut to
// 2 SFT, 3 teacher and 6 student steps (validation at 5). A student step reads each rollout turn's tokens once
// (shell: at most 3 turns) and, on the device path, every mini-batch update's statistics and g_k in ONE read after
// the step's last update (checkedUpdate.ts, policyUpdate.ts); before, one read per mini-batch (2 in smoke), so up to
// 5. That read is started before the next step's rollout is queued and awaited after it (stages/student.ts), so
// outside validation and the last step it is asynchronous: the device has the rollout to run while the host waits
// (the teacher stage's GRPO steps likewise).
// Queueing the rollout early changes no value: the run with it and the run without report the same metrics, bit for
// bit, and the gate decides at the same steps. A non-finite student step is still refused and logged as on wasm
// (trainer.e2e.test.ts's check, here on webgpu). Skipped with the reason printed where no webgpu adapter exists.
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig, type ExperimentConfig } from '../../../src/core/experiment/config';
import { loadPreset } from '../../../src/core/experiment/preset';
import type { MetricsLine, TrainerEvent } from '../../../src/engine/trainer/events';
import { METRIC } from '../../../src/core/runLog/metricKeys';
import { lookupPreset } from '../../support/presets';
import { runTrainer } from '../helpers/runTrainer';
import { BackendOrSkip } from '../helpers/webgpuOrSkip';

/** the claim: at most this many blocking read-backs per student step that is not a validation step (3 turns) */
const MAX_READBACKS_PER_STUDENT_STEP = 3;
/** …and the last step, which has no next rollout to queue during its statistics read (3 turns + 1) */
const MAX_READBACKS_LAST_STEP = 4;

/** a step's metrics without the wall-clock and read-back keys (time/…) */
function values(m: MetricsLine): Record<string, number> {
  return Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith('time/')));
}

let cfg: ExperimentConfig;
const gpu = new BackendOrSkip();

beforeAll(async () => {
  await gpu.init('webgpu');
  cfg = resolveConfig(
    { seed: 2, sft: { steps: 2 }, teacher: { steps: 3 }, student: { steps: 6 } },
    loadPreset('smoke', lookupPreset).config,
  );
});

describe('student steps on webgpu', () => {
  it(`read back at most ${MAX_READBACKS_PER_STUDENT_STEP} times per step outside validation`, async (ctx) => {
    gpu.skipIfMissing(ctx);
    const { summary, events } = await runTrainer(cfg);
    expect(summary.status, summary.error ?? '').toBe('completed');
    const lines = events.flatMap((e) => (e.type === 'step' && e.stage === 'student' ? [e.metrics] : []));
    expect(lines.length).toBe(6);
    const plain = lines.filter((l: MetricsLine) => l[METRIC.valSuccessRate] === undefined);
    const counts = plain.map((l) => l[METRIC.timeReadbacks] as number);
    const asyncCounts = plain.map((l) => l[METRIC.timeReadbacksAsync] ?? 0);
    console.log(`read-backs per student step (no validation): ${counts.join(', ')}; asynchronous ${asyncCounts}`);
    expect(plain.map((l) => l.step)).toEqual([1, 2, 3, 4, 6]);
    for (const [i, n] of counts.entries()) {
      const step = plain[i]?.step as number;
      const last = step === 6;
      expect(n, `step ${step}`).toBeGreaterThan(0);
      expect(n, `step ${step}`).toBeLessThanOrEqual(last ? MAX_READBACKS_LAST_STEP : MAX_READBACKS_PER_STUDENT_STEP);
      // the statistics read overlapped the next rollout everywhere but at the last step
      expect(asyncCounts[i], `step ${step}`).toBe(last ? 0 : 1);
    }
    // the validation step (5) reads its statistics before the validation rollout: nothing asynchronous
    expect(lines.find((l) => l.step === 5)?.[METRIC.timeReadbacksAsync]).toBeUndefined();
    // the teacher's GRPO steps: the same overlap, but for the last
    const teacherLines = events.flatMap((e) => (e.type === 'step' && e.stage === 'teacher' ? [e.metrics] : []));
    expect(teacherLines.map((l) => l[METRIC.timeReadbacksAsync] ?? 0)).toEqual([1, 1, 0]);
    for (const l of teacherLines.slice(0, 2))
      expect(l[METRIC.timeReadbacks]).toBeLessThanOrEqual(MAX_READBACKS_PER_STUDENT_STEP);
    // every mini-batch update was applied (2 per step in smoke) and the gap came back with them
    for (const l of lines) {
      expect(l[METRIC.actorUpdates]).toBe(2);
      expect(Number.isFinite(l[METRIC.opdTeacherStudentGapMean])).toBe(true);
    }
  }, 900_000);

  it('computes the same values with the next rollout queued early as without', async (ctx) => {
    gpu.skipIfMissing(ctx);
    const gateOf = (events: TrainerEvent[]): unknown[] =>
      events.filter((e) => e.type === 'window' || e.type === 'evaluation' || e.type === 'retirement');
    const on = await runTrainer(cfg);
    const off = await runTrainer(cfg, { overlapRollouts: false });
    expect(on.summary.status).toBe('completed');
    expect(off.summary.status).toBe('completed');
    const stepsOf = (events: TrainerEvent[]): [string, Record<string, number>][] =>
      events.flatMap((e) => (e.type === 'step' ? [[`${e.stage}:${e.step}`, values(e.metrics)] as const] : []));
    const a = stepsOf(on.events);
    expect(a.filter(([k]) => k.startsWith('student:')).length).toBe(6);
    expect(a.filter(([k]) => k.startsWith('teacher:')).length).toBe(3);
    expect(a).toEqual(stepsOf(off.events));
    expect(gateOf(on.events)).toEqual(gateOf(off.events));
    // without the overlap every step reads its statistics blocking, and nothing is asynchronous
    for (const e of off.events) if (e.type === 'step') expect(e.metrics[METRIC.timeReadbacksAsync]).toBeUndefined();
  }, 900_000);

  it('refuses a non-finite OPD loss and logs it naming the step and the term, as on wasm', async (ctx) => {
    gpu.skipIfMissing(ctx);
    const r = await runTrainer(cfg, { injectNonFinite: { stage: 'student', step: 3, term: 'opd' } });
    expect(r.summary.status).toBe('failed');
    expect(r.summary.error).toMatch(/non-finite opd at student step 3: opd loss = NaN/);
    expect(r.events.find((e) => e.type === 'error')).toMatchObject({ stage: 'student', step: 3, term: 'opd' });
    const steps = r.events.flatMap((e) => (e.type === 'step' && e.stage === 'student' ? [e.step] : []));
    expect(steps).toEqual([1, 2]);
  }, 900_000);
});
