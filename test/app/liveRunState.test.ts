import { describe, expect, it } from 'vitest';
import type { WorkerRequest, WorkerResponse } from '../../src/app/worker/protocol';
import { INITIAL_RUN_STATE, isActive, LOG_LIMIT, reduceRun, type RunState } from '../../src/app/train/liveRunState';
import { CONFIG, ev, evaluation, studentStep, summary } from './runFixtures';

const sent = (s: RunState, request: WorkerRequest) => reduceRun(s, { type: 'sent', request });
const got = (s: RunState, ...responses: WorkerResponse[]) =>
  responses.reduce((acc, response) => reduceRun(acc, { type: 'received', response }), s);
const started = (id = 7) =>
  got(sent(INITIAL_RUN_STATE, { type: 'start', id, config: CONFIG, backend: 'auto', control: null }), {
    type: 'backend',
    id,
    backend: 'wasm',
    skipped: [
      { backend: 'webgpu', reason: "backend 'webgpu' is not available: no adapter" },
      { backend: 'webgl', reason: "backend 'webgl' is not available: no context" },
    ],
  });

describe('the run reducer', () => {
  it('starts a run from scratch, forgetting the previous run’s series', () => {
    const old = got(started(1), ev(1, studentStep(1, 0.5)));
    expect(old.steps.student).toHaveLength(1);
    const s = sent(old, { type: 'start', id: 2, config: CONFIG, backend: 'cpu', control: null });
    expect(s.status).toBe('starting');
    expect(s.runId).toBe(2);
    expect(s.steps.student).toEqual([]);
    expect(s.config).toBe(CONFIG);
    expect(s.backendChoice).toBe('cpu');
  });

  it('runs once the worker names its backend, logging why the faster backends were skipped', () => {
    const s = started();
    expect(s.status).toBe('running');
    expect(s.backend).toBe('wasm');
    expect(s.skippedBackends.map((b) => b.backend)).toEqual(['webgpu', 'webgl']);
    expect(s.log.filter((l) => l.level === 'warning')).toHaveLength(2);
    expect(s.log.at(-1)).toEqual({ level: 'info', text: 'backend: wasm' });
  });

  it('appends step metrics per stage and tracks the stage progress', () => {
    let s = got(started(), ev(7, { type: 'stage', stage: 'sft', status: 'start', totalSteps: 8 }));
    s = got(s, ev(7, { type: 'step', stage: 'sft', step: 1, totalSteps: 8, metrics: { step: 1, 'sft/loss': 2 } }));
    s = got(s, ev(7, studentStep(1, 0.25)), ev(7, studentStep(2, 0.5)));
    expect(s.steps.sft.map((m) => m.step)).toEqual([1]);
    expect(s.steps.student.map((m) => m['rollout/success_rate'])).toEqual([0.25, 0.5]);
    expect([s.stage, s.step, s.totalSteps]).toEqual(['student', 2, 20]);
  });

  it('ignores events of another run (a late message from a terminated worker)', () => {
    const s = started(7);
    expect(got(s, ev(6, studentStep(1, 1)))).toBe(s);
    expect(got(s, { type: 'failed', id: 6, error: { name: 'Error', message: 'old' } })).toBe(s);
  });

  it('collects windows, gate evaluations and the retirement marker', () => {
    const s = got(
      started(),
      ev(7, { type: 'window', step: 5, window: { end_step: 5, mean: 0.3 } }),
      ev(7, { type: 'window', step: 10, window: { end_step: 10, mean: 0.2 } }),
      ev(7, { type: 'evaluation', kind: 'gate', step: 10, evaluation: evaluation(10, Number.NaN, Number.NaN) }),
      ev(7, { type: 'evaluation', kind: 'gate', step: 15, evaluation: evaluation(15, -0.1, 0.95, true) }),
      ev(7, { type: 'retirement', step: 15, triggerStep: 15, schedule: 'adaptive', teacherPerformance: 0.5 }),
    );
    expect(s.windows).toEqual([
      { step: 5, mean: 0.3 },
      { step: 10, mean: 0.2 },
    ]);
    expect(s.evaluations.map((e) => e.step)).toEqual([10, 15]);
    expect(s.retirement?.triggerStep).toBe(15);
    expect(s.log.at(-1)?.text).toBe('the teacher retired at step 15 (adaptive)');
  });

  it('ends as completed, stopped or failed after the summary’s status', () => {
    const done = (status: 'completed' | 'interrupted' | 'failed') =>
      got(started(), ev(7, { type: 'done', summary: summary(status) }));
    expect(done('completed').status).toBe('completed');
    expect(done('interrupted').status).toBe('stopped');
    const failed = done('failed');
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toBe('non-finite opd at student step 4: opd loss = NaN');
  });

  it('keeps the trainer’s error event (naming step and term) over the summary’s copy', () => {
    const s = got(
      started(),
      ev(7, {
        type: 'error',
        message: 'non-finite opd at student step 4: opd loss = NaN',
        stage: 'student',
        step: 4,
        term: 'opd',
      }),
      ev(7, { type: 'done', summary: summary('failed') }),
    );
    expect(s.error).toEqual({ name: 'NonFiniteError', message: 'non-finite opd at student step 4: opd loss = NaN' });
    expect(s.log.some((l) => l.level === 'error' && l.text.startsWith('student step 4: '))).toBe(true);
  });

  it('is pausing until the worker says the run is held, and running again when it says so', () => {
    let s = sent(started(), { type: 'pause', id: 20 });
    expect(s.status).toBe('pausing');
    expect(got(s, { type: 'ack', id: 20, of: 'pause' }).status).toBe('pausing');
    s = got(s, { type: 'events', id: 7, events: [studentStep(3, 0.5)] }, { type: 'control', id: 7, state: 'paused' });
    expect(s.status).toBe('paused');
    expect(s.log.at(-1)?.text).toBe('paused at student step 3');
    s = sent(s, { type: 'resume', id: 21 });
    expect(s.status).toBe('paused');
    s = got(s, { type: 'control', id: 7, state: 'running' });
    expect(s.status).toBe('running');
  });

  it('lets a stop win over a late pause, and ignores control messages of another run', () => {
    const s = sent(started(), { type: 'stop', id: 22 });
    expect(s.status).toBe('stopping');
    expect(got(s, { type: 'control', id: 7, state: 'paused' }).status).toBe('stopping');
    expect(got(started(), { type: 'control', id: 6, state: 'paused' }).status).toBe('running');
    const done = got(s, ev(7, { type: 'done', summary: summary('interrupted') }));
    expect(got(done, { type: 'control', id: 7, state: 'running' }).status).toBe('stopped');
  });

  it('fails the run when the worker cannot start it', () => {
    const rejected = got(
      sent(INITIAL_RUN_STATE, { type: 'start', id: 3, config: CONFIG, backend: 'auto', control: null }),
      {
        type: 'rejected',
        id: 3,
        of: 'start',
        error: { name: 'RunInProgress', message: 'run 2 is still going: stop it first' },
      },
    );
    expect(rejected.status).toBe('failed');
    const failed = got(started(), {
      type: 'failed',
      id: 7,
      error: { name: 'BackendUnavailableError', message: 'no tfjs backend starts here' },
    });
    expect(failed.status).toBe('failed');
    expect(failed.error?.name).toBe('BackendUnavailableError');
  });

  it('ends interrupted, not failed, when browser storage filled up — the runs table’s word — and logs its riders so', () => {
    const message = 'browser storage is full while saving run r-1 (DataError: Failed to write blobs (IOError)): …';
    const s = got(
      started(),
      { type: 'ride', id: 7, runId: 'r-opd', end: 'interrupted', step: 9, reason: message },
      { type: 'failed', id: 7, error: { name: 'StorageQuotaError', message } },
    );
    expect(s.status).toBe('interrupted');
    expect(isActive(s.status)).toBe(false);
    expect(s.rides).toEqual([{ runId: 'r-opd', end: 'interrupted', step: 9 }]);
    expect(s.log.slice(-2)).toEqual([
      {
        level: 'info',
        text: `run r-opd stopped with this run when browser storage filled up; continue it from its last checkpoint (${message})`,
      },
      { level: 'error', text: `StorageQuotaError: ${message}` },
    ]);
  });

  it('logs where each rider left the run, and ignores riders of another run', () => {
    const s = got(
      started(),
      { type: 'ride', id: 7, runId: 'r-opd', end: 'detached', step: 230, reason: 'at student step 231 …' },
      { type: 'ride', id: 7, runId: 'r-fix', end: 'stopped', step: 12, reason: 'its leader was stopped' },
      { type: 'ride', id: 8, runId: 'r-other', end: 'lost', step: null, reason: 'x' },
    );
    expect(s.log.slice(-2)).toEqual([
      {
        level: 'info',
        text: 'run r-opd shared student steps 1–230 with this run; it continues alone (at student step 231 …)',
      },
      { level: 'info', text: 'run r-fix stopped with this run at student step 12' },
    ]);
    expect(s.status).toBe('running');
  });

  it('keeps only the newest log entries', () => {
    let s = started();
    for (let i = 0; i < LOG_LIMIT + 50; i++) s = got(s, ev(7, { type: 'warning', message: `w${i}` }));
    expect(s.log).toHaveLength(LOG_LIMIT);
    expect(s.log.at(-1)?.text).toBe(`w${LOG_LIMIT + 49}`);
  });
});
