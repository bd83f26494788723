// A stored run restored after a reload reads the same as the live run did: the same fold of the same events.
import { describe, expect, it } from 'vitest';
import { restoreRunState } from '../../src/app/runs/restoreRunState';
import { isTrainedStage, type StoredEvent, type StoredMetrics } from '../../src/app/runs/runRecord';
import { INITIAL_RUN_STATE, reduceRun } from '../../src/app/train/liveRunState';
import { CONFIG, RUN_EVENTS, summary } from './runFixtures';
import { freshRecord } from './runRecordFixtures';

const EVENTS = RUN_EVENTS;

describe('a restored run', () => {
  it('has the live run’s series, gate rows, retirement and trainer log lines', () => {
    const start = reduceRun(INITIAL_RUN_STATE, {
      type: 'sent',
      request: { type: 'start', id: 1, config: CONFIG, backend: 'wasm', control: null },
    });
    const live = reduceRun(start, { type: 'received', response: { type: 'events', id: 1, events: EVENTS } });
    const metrics: StoredMetrics[] = EVENTS.flatMap((e) =>
      e.type === 'step' && isTrainedStage(e.stage)
        ? [{ runId: 'run-1', stage: e.stage, step: e.step, line: e.metrics }]
        : [],
    );
    const stored: StoredEvent[] = EVENTS.filter((e) => e.type !== 'step' && e.type !== 'done').map((event, seq) => ({
      runId: 'run-1',
      seq,
      stage: 'student',
      step: 0,
      event,
    }));
    const record = {
      ...freshRecord(),
      status: 'completed' as const,
      stage: 'evaluation' as const,
      summary: summary('completed', 10),
    };
    const restored = restoreRunState(record, metrics, stored);
    expect(restored.steps).toEqual(live.steps);
    expect(restored.windows).toEqual(live.windows);
    expect(restored.evaluations).toEqual(live.evaluations);
    expect(restored.retirement).toEqual(live.retirement);
    expect(restored.status).toBe('completed');
    // the live log also has the start line; every trainer line is the same text in both
    expect(live.log.slice(1, -1)).toEqual(restored.log);
    expect(restored.log[0]?.text).toBe('sft: 2 steps — ActObs, λ_obs 1');
  });

  it('reads a run stored before the per-step flag (the running count under its name) as flag and total', () => {
    const line = (step: number, count: number): StoredMetrics => ({
      runId: 'run-1',
      stage: 'student',
      step,
      line: { step, 'retire_opd/teacher_forward_skipped': count },
    });
    const restored = restoreRunState(freshRecord(), [line(1, 0), line(2, 1), line(3, 2)], []);
    expect(
      restored.steps.student.map((l) => [
        l['retire_opd/teacher_forward_skipped'],
        l['retire_opd/teacher_forwards_skipped_total'],
      ]),
    ).toEqual([
      [0, 0],
      [1, 1],
      [1, 2],
    ]);
  });

  it('reads interrupted for a run the table calls interrupted, and stopped for one stopped by hand', () => {
    const at = (status: 'interrupted' | 'stopped' | 'failed') =>
      restoreRunState({ ...freshRecord(), status, checkpoint: 'student-000005' }, [], []).status;
    expect([at('interrupted'), at('stopped'), at('failed')]).toEqual(['interrupted', 'stopped', 'failed']);
  });
});
