// The training worker's logic (src/app/worker/workerHandler.ts) in Node, on the smoke preset (wasm): what the page
// sees of a run — ack, backend (with the fallback chain), batched events, 'done' after the stored record is saved —
// equals a direct trainer run apart from wall-clock fields; one run at a time; pause holds at a step boundary and a
// step credit runs exactly one step (shared flags) or a resume message lets the run go (message fallback); the same
// behind the in-thread run store. Every wait is on a message or on the hold's own polling (an injected sleep). Runs
// that end early (stopped, failed) are in workerHandlerEnds.e2e.test.ts.

import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { PROBE_CHANNEL, type ProbeResponseMessage } from '../../src/app/teaching/probeProtocol';
import { ProbeHost } from '../../src/app/worker/probeHost';
import { CONTROL_PAUSE, CONTROL_STEP } from '../../src/app/worker/protocol';
import { createRunStore, type RunStore } from '../../src/app/train/liveRunStore';
import type { RunState } from '../../src/app/train/liveRunState';
import { createInThreadWorker, type RunProbe } from '../../src/app/worker/workerHandler';
import type { RunSummary } from '../../src/core/experiment/summary';
import { initBackend } from '../../src/engine/backend';
import type { TrainerEvent } from '../../src/engine/trainer/events';
import { runTrainer } from '../engine/helpers/runTrainer';
import { freshRecord } from './runRecordFixtures';
import {
  atBoundary,
  type Harness,
  harness,
  isControl,
  isEnd,
  sharedFlags,
  SMOKE,
  start,
  type Step,
  summaryOf,
  withoutClock,
} from './workerHarness';

describe('the worker handler on the smoke preset', () => {
  let direct: { summary: RunSummary; events: TrainerEvent[] };

  beforeAll(async () => {
    await initBackend('wasm');
    direct = await runTrainer(SMOKE);
  }, 300_000);

  it('acks, names its backend after the fallback, batches the events and ends as a direct trainer run', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun({ ...freshRecord('run-1'), config: SMOKE });
    const h = harness({
      // webgl does not start here: the chain falls back to wasm
      startBackend: async (backend) => {
        if (backend === 'webgl') throw new Error('no WebGL2 in this test');
        return initBackend(backend);
      },
      openRepository: async () => repo,
      // a clock that never moves: step events wait for the next non-step event (eventBatch.ts)
      clock: () => 0,
    });
    let storedAtDone = null as Promise<unknown> | null;
    h.onMessage((m) => {
      // what the repository holds at the moment 'done' is posted (getRun copies it before its first await)
      if (isEnd(1)(m)) storedAtDone = repo.getRun('run-1');
    });
    const ended = h.next(isEnd(1));
    h.send(start(1, { backend: 'webgl', record: { runId: 'run-1', resume: false } }));
    expect(h.messages[0]).toEqual({ type: 'ack', id: 1, of: 'start' });
    await h.next((m) => m.type === 'backend');
    expect(h.messages[1]).toEqual({
      type: 'backend',
      id: 1,
      backend: 'wasm',
      skipped: [{ backend: 'webgl', reason: 'no WebGL2 in this test' }],
    });
    // one run at a time
    h.send(start(2));
    expect(h.messages.at(-1)).toMatchObject({ type: 'rejected', id: 2, of: 'start', error: { name: 'RunInProgress' } });
    expect(await ended).toMatchObject({ type: 'events', id: 1 });

    expect(withoutClock(h.events(1))).toEqual(withoutClock(direct.events));
    expect(summaryOf(h, 1).status).toBe('completed');
    expect(withoutClock(summaryOf(h, 1))).toEqual(withoutClock(direct.summary));
    // batched: 31 step events in fewer messages, and a message with steps ends where a non-step event flushed it
    const batches = h.messages.filter((m) => m.type === 'events');
    const stepCounts = batches.map((m) => (m.type === 'events' ? m.events.filter((e) => e.type === 'step').length : 0));
    expect(stepCounts.reduce((a, b) => a + b, 0)).toBe(31);
    expect(Math.max(...stepCounts)).toBeGreaterThan(1);
    for (const m of batches.slice(1)) if (m.type === 'events') expect(m.events.at(-1)?.type).not.toBe('step');
    // 'done' went out once the run's record was saved
    expect(await storedAtDone).toMatchObject({ id: 'run-1', status: 'completed', backend: 'wasm', triggerStep: 10 });
    expect((await repo.metrics('run-1')).length).toBe(31);
    // the run is over: a pause finds none
    h.send({ type: 'pause', id: 3 });
    expect(h.messages.at(-1)).toMatchObject({ type: 'rejected', id: 3, of: 'pause', error: { name: 'NoRun' } });
  });

  it('holds a run paused by the shared flag at a step boundary, lets one step run per credit, probes it held', async () => {
    const { buffer, flags } = sharedFlags();
    const seen = { rollouts: 0, at: [] as string[] };
    const h = harness({
      createProbe: (control): RunProbe => {
        const host = new ProbeHost(control);
        return {
          setEnv: (env) => host.setEnv(env),
          observe: (request) => {
            seen.rollouts++;
            host.observe(request);
          },
          at: (stage, step) => {
            seen.at.push(`${stage} ${step}`);
            host.at(stage, step);
            // the page pauses after student step 3 (the hold at this very boundary sees the flag)
            if (stage === 'student' && step === 3) Atomics.store(flags, CONTROL_PAUSE, 1);
          },
          close: () => host.close(),
        };
      },
    });

    const ended = h.next(isEnd(1));
    const paused = h.next(isControl(1, 'paused'));
    h.send(start(1, { control: buffer }));
    await paused;
    // the page has every step up to the one the run is held at, and the probe host is at that boundary
    const held = h.steps(1).at(-1)!;
    expect(held).toMatchObject({ stage: 'student', step: 3 });
    expect(seen.at.at(-1)).toBe('student 3');
    const rollouts = seen.rollouts;
    await h.polls(5); // the hold re-read the flags five times (≥ 5 × 40 ms): nothing moved meanwhile
    expect(h.steps(1).at(-1)).toBe(held);
    expect(seen.rollouts).toBe(rollouts);

    // the trajectory viewer samples the held run: the answer names the boundary
    const channel = new BroadcastChannel(PROBE_CHANNEL);
    try {
      const answer = new Promise<ProbeResponseMessage>((resolve) => {
        channel.onmessage = (e: MessageEvent<ProbeResponseMessage>) => resolve(e.data);
      });
      channel.postMessage({
        type: 'probe',
        nonce: 'n1',
        split: 'validation',
        taskIndices: [0],
        seed: 7,
        teacherEpisodes: true,
      });
      const result = await answer;
      expect(result).toMatchObject({ type: 'probe-result', nonce: 'n1', stage: 'student', step: held.step });
      if (result.type === 'probe-result') expect(result.episodes.length).toBeGreaterThan(0);
    } finally {
      channel.close();
    }
    expect(h.steps(1).at(-1)).toBe(held);

    // one credit: 'running' for exactly one step, then held again at the next boundary
    const running = h.next(isControl(1, 'running'));
    const pausedAgain = h.next(isControl(1, 'paused'));
    Atomics.add(flags, CONTROL_STEP, 1);
    Atomics.notify(flags, CONTROL_PAUSE);
    await running;
    await pausedAgain;
    expect(Atomics.load(flags, CONTROL_STEP)).toBe(0);
    expect(h.steps(1).at(-1)).toMatchObject({ stage: 'student', step: held.step + 1 });

    // resume: the run completes as if it had never been held
    Atomics.store(flags, CONTROL_PAUSE, 0);
    await ended;
    expect(withoutClock(summaryOf(h, 1))).toEqual(withoutClock(direct.summary));
    expect(h.steps(1).map((s) => `${s.stage} ${s.step}`)).toEqual(
      direct.events.filter((e): e is Step => e.type === 'step').map((s) => `${s.stage} ${s.step}`),
    );
  });

  it('holds a run paused by message at a step boundary and completes it on a resume message', async () => {
    const h: Harness = harness(
      atBoundary((stage, step) => {
        if (stage === 'teacher' && step === 1) h.send({ type: 'pause', id: 2 });
      }),
    );
    const ended = h.next(isEnd(1));
    const paused = h.next(isControl(1, 'paused'));
    h.send(start(1));
    await paused;
    const held = h.steps(1).at(-1)!;
    expect(held).toMatchObject({ stage: 'teacher', step: 1 });
    await h.polls(3);
    expect(h.steps(1).at(-1)).toBe(held);
    const running = h.next(isControl(1, 'running'));
    h.send({ type: 'resume', id: 3 });
    expect(h.messages.at(-1)).toEqual({ type: 'ack', id: 3, of: 'resume' });
    await running;
    await ended;
    expect(summaryOf(h, 1).status).toBe('completed');
    expect(withoutClock(summaryOf(h, 1))).toEqual(withoutClock(direct.summary));
  });

  it('runs in-thread behind the run store: pause, one step, resume, and the summary of a direct run', async () => {
    const store: RunStore = createRunStore(
      () =>
        createInThreadWorker({
          startBackend: (b) => initBackend(b),
          openRepository: null,
          loadTeacher: async () => null,
        }),
      { sharedControl: true },
    );
    const until = (ok: (s: RunState) => boolean) =>
      new Promise<RunState>((resolve) => {
        const unsubscribe = store.subscribe((s) => {
          if (ok(s)) {
            unsubscribe();
            resolve(s);
          }
        });
      });
    const inStudent = until((s) => s.status === 'running' && s.stage === 'student' && s.step >= 2);
    store.getState().start(SMOKE, 'wasm');
    await inStudent;
    const paused = until((s) => s.status === 'paused');
    store.getState().pause();
    const held = await paused;
    expect(held.stage).toBe('student');
    const stepped = until((s) => s.status === 'paused' && s.step !== held.step);
    store.getState().stepOnce();
    expect((await stepped).step).toBe(held.step + 1);
    const completed = until((s) => s.status === 'completed');
    store.getState().resume();
    const end = await completed;
    expect(withoutClock(end.summary)).toEqual(withoutClock(direct.summary));
    expect(end.steps.student.map((line) => line.step)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
