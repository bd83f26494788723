// The guided tour's sentences about the run on screen: computed from that run's facts, a question where the run has
// not got there, and never a claim the run contradicts.
import { describe, expect, it } from 'vitest';
import { momentFrame, TOUR, signed, type TourFacts } from '../../src/app/teaching/tour';
import { playbackTimeline } from '../../src/core/runLog/runPlayback';

const NOTHING: TourFacts = {
  preset: null,
  active: false,
  cosine: [],
  teacherPerformance: null,
  windows: [],
  lastEvaluation: null,
  triggerStep: null,
  result: null,
};
const stop = (n: number) => TOUR[n - 1]!;

describe('the guided tour', () => {
  it('writes signs as the charts do: a true minus and an explicit plus', () => {
    expect([signed(-0.1), signed(0.17), signed(0), signed(0.4182, 3)]).toEqual(['−0.10', '+0.17', '+0.00', '+0.418']);
  });

  it('states the cosine the run measured, first and last, rising or falling', () => {
    const facts = {
      ...NOTHING,
      cosine: [
        { step: 5, value: -0.1 },
        { step: 25, value: 0.03 },
        { step: 45, value: 0.17 },
      ],
    };
    expect(stop(2).text(facts)).toContain('went from −0.10 at SFT step 5 to +0.17 at step 45 (40 steps)');
    expect(stop(2).text(facts)).not.toMatch(/falls/);
  });

  it('asks the class instead of claiming, before the run has the numbers', () => {
    for (const n of [2, 3, 4, 5, 6, 8]) expect(stop(n).text(NOTHING), `stop ${n}`).toMatch(/\?/);
    expect(stop(6).text(NOTHING)).toContain('has not retired its teacher (yet)');
  });

  it('tells how to start when no run is going, and not when one is', () => {
    expect(stop(1).text(NOTHING)).toContain('press Start (or Space');
    expect(stop(1).text({ ...NOTHING, active: true, preset: 'smoke' })).toMatch(/^A smoke run is going\./);
  });

  it('reads the gap, ρ, η, S_T, the trigger and the result off the run', () => {
    const facts: TourFacts = {
      ...NOTHING,
      teacherPerformance: 0.75,
      windows: [
        { step: 5, mean: 0.5 },
        { step: 10, mean: 0.4 },
        { step: 15, mean: 0.45 },
      ],
      lastEvaluation: { step: 15, rho: -0.125, eta: 0.95 },
      triggerStep: 15,
      result: { testSuccess: 0.8125, forwardsSkipped: 385 },
    };
    expect(stop(3).text(facts)).toContain('on this run S_T = 75.0 %.');
    expect(stop(4).text(facts)).toContain('K̄ₘ shrank from 0.500 (step 5) to 0.450 (step 15) over 3 windows.');
    expect(stop(5).text(facts)).toContain('(step 15) ρ = −0.125 and η = 0.950.');
    expect(stop(6).text(facts)).toContain('retired the teacher at step 15');
    expect(stop(8).text(facts)).toContain('test success 81.3 % against S_T = 75.0 %, 385 teacher forwards skipped.');
  });

  it('places the recorded lesson among the reporting seeds at the result stop, from the shipped spread', () => {
    const seedSpread = {
      source: 'docs/outcomes/protocol-shell-reporting.md',
      commit: 'e1ba75a',
      date: '2026-12-03',
      comparison: 'RetireOPD − OPD throughout',
      seed: 1000,
      thisSeed: 16.7,
      n: 10,
      mean: 3.6,
      halfWidth: 11.6,
      level: 0.95,
      perSeed: [],
    };
    const facts: TourFacts = { ...NOTHING, preset: 'retire-shell', recorded: true, seedSpread };
    expect(stop(8).text(facts)).toContain(
      'RetireOPD − OPD throughout, this recording against the held-out reporting seeds — this seed: +16.7; ' +
        'ten seeds: +3.6 ± 11.6 (95 % interval; no measurable difference).',
    );
    // a live run is not the recorded seed: only the ten seeds are stated
    const live = stop(8).text({ ...facts, recorded: false });
    expect(live).toContain('over the held-out reporting seeds — ten seeds: +3.6 ± 11.6');
    expect(live).not.toContain('this seed');
    // another preset's run is not what the spread measured
    expect(stop(8).text({ ...facts, preset: 'smoke' })).not.toContain('reporting seeds');
  });

  it('says ρ and η are undefined at the first evaluated window', () => {
    const facts = { ...NOTHING, lastEvaluation: { step: 5, rho: Number.NaN, eta: Number.NaN } };
    expect(stop(5).text(facts)).toContain('no previous window to compare with');
  });

  it('has something to wait for at every stop', () => {
    for (const s of TOUR) expect(s.waitFor.length, s.title).toBeGreaterThan(10);
  });
});

describe('the tour on a recording', () => {
  // SFT steps 1–2, student steps 1–4, the teacher retiring at student step 4
  const timeline = playbackTimeline({
    steps: { sft: [{ step: 1 }, { step: 2 }], teacher: [], student: [1, 2, 3, 4].map((step) => ({ step })) },
    events: [{ type: 'retirement', step: 4, triggerStep: 4, schedule: 'adaptive', teacherPerformance: 0.5 }],
    summary: null,
  });

  it('moves the playhead to each stop’s moment: SFT’s end, the student’s start, half-way, the retirement, the end', () => {
    const frames = (['start', 'sft-end', 'student-start', 'before-retirement', 'retirement', 'end'] as const).map((m) =>
      momentFrame(timeline, m),
    );
    expect(frames).toEqual([0, 2, 3, 4, 6, 6]);
    expect(TOUR.map((s) => s.recordedAt)).toEqual([
      'start',
      'sft-end',
      'student-start',
      'before-retirement',
      'before-retirement',
      'retirement',
      'retirement',
      'end',
      'end',
    ]);
  });

  it('says on its first stop that the run on screen is a recording, and how to train it live', () => {
    expect(stop(1).text({ ...NOTHING, preset: 'retire-shell', recorded: true })).toContain(
      'This is a recording of retire-shell',
    );
    expect(stop(1).text(NOTHING)).toContain('press Start');
  });
});
