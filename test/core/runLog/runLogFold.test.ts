import { describe, expect, it } from 'vitest';
import { EMPTY_RUN_LOG, foldPosition, foldRunLog, LOG_LIMIT } from '../../../src/core/runLog/runLogFold';
import type { TrainerEvent } from '../../../src/core/runLog/trainerEvent';
import { RUN_EVENTS, summary } from '../../app/runFixtures';

const RUN = RUN_EVENTS;

describe('the run log fold', () => {
  it('reads a whole run: position, metrics per stage, gate, retirement, checkpoint, summary and log', () => {
    const log = foldRunLog(EMPTY_RUN_LOG, RUN);
    expect(log).toMatchObject({
      stage: 'student',
      step: 11,
      totalSteps: 20,
      triggerStep: 10,
      checkpoint: 'student-000010',
    });
    expect(log.steps.sft.map((l) => l.step)).toEqual([1, 2]);
    expect(log.steps.student.map((l) => l.step)).toEqual([1, 11]);
    expect(log.windows).toEqual([{ step: 5, mean: 0.4 }]);
    expect(log.evaluations.map((e) => e.step)).toEqual([10]);
    expect(log.retirement).toEqual({ step: 10, triggerStep: 10, schedule: 'adaptive', teacherPerformance: 0.5 });
    expect(log.summary?.status).toBe('completed');
    expect(log.log.map((l) => l.text)).toEqual([
      'sft: 2 steps — ActObs, λ_obs 1',
      'teacher: skipped',
      'student: 20 steps',
      'the teacher retired at step 10 (adaptive)',
      'checkpoint student-000010 (periodic)',
      'slow step',
      'run completed after 12.5 s',
    ]);
  });

  it('gives the same log folded event by event as in one batch (live batches and a stored run agree)', () => {
    const oneByOne = RUN.reduce((s, e) => foldRunLog(s, [e]), EMPTY_RUN_LOG);
    expect(oneByOne).toEqual(foldRunLog(EMPTY_RUN_LOG, RUN));
  });

  it('names a non-finite failure and keeps it over the summary’s shorter message', () => {
    const log = foldRunLog(EMPTY_RUN_LOG, [
      { type: 'error', message: 'non-finite opd at student step 4', stage: 'student', step: 4, term: 'opd' },
      { type: 'done', summary: summary('failed') },
    ]);
    expect(log.error).toEqual({ name: 'NonFiniteError', message: 'non-finite opd at student step 4' });
    expect(log.log.at(-1)).toEqual({ level: 'error', text: 'run failed after 12.5 s' });
  });

  it('keeps the newest LOG_LIMIT log lines', () => {
    const warnings: TrainerEvent[] = Array.from({ length: LOG_LIMIT + 5 }, (_, i) => ({
      type: 'warning',
      message: `w${i}`,
    }));
    const log = foldRunLog(EMPTY_RUN_LOG, warnings);
    expect(log.log).toHaveLength(LOG_LIMIT);
    expect(log.log[0]?.text).toBe('w5');
  });

  it('moves the position of any record-like object and leaves its other fields alone', () => {
    const rec = { id: 'r', stage: null, step: 0, totalSteps: 0, triggerStep: null, checkpoint: null };
    expect(foldPosition(rec, { type: 'stage', stage: 'student', status: 'start', totalSteps: 40 })).toEqual({
      ...rec,
      stage: 'student',
      totalSteps: 40,
    });
    expect(foldPosition(rec, { type: 'warning', message: 'x' })).toBe(rec);
  });
});
