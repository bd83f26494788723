import { describe, expect, it } from 'vitest';
import { trainsLikeRecording } from '../../../src/core/experiment/demoRecording';
import { demoStorySentence } from '../../../src/core/experiment/demoStory';
import type { RunSummary } from '../../../src/core/experiment/summary';
import { CONFIG, summary } from '../../app/runFixtures';

const arm = (testSuccess: number, triggerStep: number | null, sT = 0.766): RunSummary => {
  const s = summary('completed', triggerStep);
  return { ...s, teacherPerformance: sT, test: { ...s.test, successRate: testSuccess } };
};

describe('the Overview’s sentence', () => {
  it('states the trigger step, S_T and the three test successes from the recordings', () => {
    expect(demoStorySentence({ retire: arm(0.857, 250), opd: arm(0.83, null), grpo: arm(0.6094, null) })).toBe(
      'The teacher retired at student step 250 (S_T 76.6 %); by the end the retired student passed OPD throughout ' +
        'on the test tasks: 85.7 % vs 83.0 % (GRPO alone: 60.9 %).',
    );
  });

  it('says so when the retired student ends below OPD throughout, or the gate never retired', () => {
    expect(demoStorySentence({ retire: arm(0.8, 120), opd: arm(0.83, null), grpo: arm(0.5, null) })).toContain(
      'the retired student did not pass OPD throughout on the test tasks: 80.0 % vs 83.0 %',
    );
    expect(demoStorySentence({ retire: arm(0.83, null), opd: arm(0.83, null), grpo: arm(0.5, null) })).toMatch(
      /^The gate did not retire the teacher in this recording \(S_T 76\.6 %\); by the end the student matched/,
    );
  });
});

describe('racing a recording', () => {
  it('matches a config that differs only in its name and runtime keys, whatever the key order', () => {
    const { runtime, ...rest } = CONFIG;
    const reordered = JSON.parse(JSON.stringify({ runtime, ...rest })) as typeof CONFIG;
    expect(
      trainsLikeRecording({ ...reordered, name: 'other', runtime: { ...CONFIG.runtime, keepCheckpoints: 0 } }, CONFIG),
    ).toBe(true);
  });

  it('does not match another seed or another student schedule', () => {
    expect(trainsLikeRecording({ ...CONFIG, seed: CONFIG.seed + 1 }, CONFIG)).toBe(false);
    expect(trainsLikeRecording({ ...CONFIG, student: { ...CONFIG.student, schedule: 'never' } }, CONFIG)).toBe(false);
  });
});
