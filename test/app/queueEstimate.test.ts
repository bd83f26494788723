// The queue's time estimate: this browser's measured seconds per training step, the same preset's runs first.
import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../src/core/experiment/config';
import { estimateQueue, trainingSteps } from '../../src/app/runs/queueEstimate';
import { CONFIG } from './runFixtures';

const cfg = (sft: number, teacher: number, student: number, env = CONFIG.env.name) =>
  applyOverrides({ ...CONFIG, env: { ...CONFIG.env, name: env } }, [
    `sft.steps=${sft}`,
    `teacher.steps=${teacher}`,
    `student.steps=${student}`,
  ]);

describe('the queue’s time estimate', () => {
  it('counts SFT, teacher and student steps', () => {
    expect(trainingSteps(cfg(10, 0, 30))).toBe(40);
  });

  it('uses the same preset’s finished runs: wall time over their steps, times the queued steps', () => {
    const finished = [
      { preset: 'smoke', config: cfg(10, 10, 20), wallSeconds: 20 }, // 40 steps
      { preset: 'smoke', config: cfg(10, 10, 40), wallSeconds: 40 }, // 60 steps
      { preset: 'other', config: cfg(10, 10, 20), wallSeconds: 400 },
    ];
    // (20 + 40) s / (40 + 60) steps = 0.6 s a step; two runs of 50 steps = 60 s
    const e = estimateQueue('smoke', [{ config: cfg(10, 10, 30) }, { config: cfg(10, 10, 30) }], finished);
    expect(e?.secondsPerStep).toBeCloseTo(0.6, 12);
    expect(e?.seconds).toBeCloseTo(60, 9);
    expect(e?.basis).toBe('600 ms a step, measured over 2 finished smoke runs in this browser');
  });

  it('falls back to the same environment’s runs, and gives no estimate without a measured run', () => {
    const finished = [{ preset: 'other', config: cfg(5, 0, 5), wallSeconds: 5 }];
    const e = estimateQueue('smoke', [{ config: cfg(10, 0, 10) }], finished);
    expect(e?.seconds).toBeCloseTo(10, 9);
    expect(e?.basis).toContain(`over 1 finished ${CONFIG.env.name} run in`);
    expect(estimateQueue('smoke', [{ config: cfg(10, 0, 10, 'house') }], finished.slice(0, 0))).toBeNull();
    expect(estimateQueue('smoke', [], finished)).toBeNull();
  });
});
