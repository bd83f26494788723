import { describe, expect, it } from 'vitest';
import { CONTROL_PAUSE, CONTROL_STOP, type WorkerRequest, type WorkerResponse } from '../../src/app/worker/protocol';
import { createRunStore } from '../../src/app/train/liveRunStore';
import type { WorkerLike } from '../../src/app/worker/protocol';
import { CONFIG, ev, studentStep, summary } from './runFixtures';

/** A worker stand-in: records what the page posts; `reply` plays the worker's answers. */
class FakeWorker implements WorkerLike {
  posted: WorkerRequest[] = [];
  terminated = false;
  onmessage: ((event: MessageEvent<WorkerResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  postMessage(message: WorkerRequest): void {
    this.posted.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
  reply(response: WorkerResponse): void {
    this.onmessage?.({ data: response } as MessageEvent<WorkerResponse>);
  }
}

function setup(sharedControl = false) {
  const workers: FakeWorker[] = [];
  const store = createRunStore(
    () => {
      const w = new FakeWorker();
      workers.push(w);
      return w;
    },
    { sharedControl },
  );
  return { store, workers };
}

describe('the run store', () => {
  it('posts a start request with a fresh id to a new worker and follows its events', () => {
    const { store, workers } = setup();
    store.getState().start(CONFIG, 'wasm');
    const w = workers[0]!;
    const start = w.posted[0];
    expect(start).toMatchObject({ type: 'start', config: CONFIG, backend: 'wasm' });
    const id = start!.id;
    w.reply({ type: 'ack', id, of: 'start' });
    w.reply({ type: 'backend', id, backend: 'wasm', skipped: [] });
    w.reply(ev(id, studentStep(1, 0.5)));
    expect(store.getState().status).toBe('running');
    expect(store.getState().steps.student).toHaveLength(1);
  });

  it('terminates the worker when the run ends, and the next run gets a new one with a new id', () => {
    const { store, workers } = setup();
    store.getState().start(CONFIG, 'cpu');
    const first = workers[0]!;
    const id = first.posted[0]!.id;
    first.reply({ type: 'backend', id, backend: 'cpu', skipped: [] });
    first.reply(ev(id, { type: 'done', summary: summary('completed', 10) }));
    expect(store.getState().status).toBe('completed');
    expect(first.terminated).toBe(true);
    store.getState().start(CONFIG, 'cpu');
    expect(workers).toHaveLength(2);
    expect(workers[1]!.posted[0]!.id).not.toBe(id);
  });

  it('ignores a second start while a run is going', () => {
    const { store, workers } = setup();
    store.getState().start(CONFIG, 'cpu');
    store.getState().start(CONFIG, 'wasm');
    expect(workers).toHaveLength(1);
    expect(workers[0]!.posted).toHaveLength(1);
  });

  it('controls the run through shared flags when the page is cross-origin isolated, posting nothing', () => {
    const { store, workers } = setup(true);
    store.getState().start(CONFIG, 'wasm');
    const w = workers[0]!;
    const start = w.posted[0];
    if (start?.type !== 'start' || start.control === null)
      throw new Error('expected a start request with control flags');
    const flags = new Int32Array(start.control);
    w.reply({ type: 'backend', id: start.id, backend: 'wasm', skipped: [] });
    store.getState().pause();
    expect([Atomics.load(flags, CONTROL_STOP), Atomics.load(flags, CONTROL_PAUSE)]).toEqual([0, 1]);
    expect(store.getState().status).toBe('pausing');
    w.reply({ type: 'control', id: start.id, state: 'paused' });
    store.getState().resume();
    expect(Atomics.load(flags, CONTROL_PAUSE)).toBe(0);
    store.getState().stop();
    expect(Atomics.load(flags, CONTROL_STOP)).toBe(1);
    expect(w.posted.map((r) => r.type)).toEqual(['start']);
  });

  it('sends pause only while running, resume only while paused, and stop while active', () => {
    const { store, workers } = setup();
    store.getState().start(CONFIG, 'cpu');
    const w = workers[0]!;
    const id = w.posted[0]!.id;
    store.getState().pause(); // still starting: nothing to pause yet
    expect(w.posted.map((r) => r.type)).toEqual(['start']);
    w.reply({ type: 'backend', id, backend: 'cpu', skipped: [] });
    store.getState().pause();
    const pause = w.posted.at(-1)!;
    expect(pause.type).toBe('pause');
    w.reply({ type: 'ack', id: pause.id, of: 'pause' });
    w.reply({ type: 'control', id, state: 'paused' });
    expect(store.getState().status).toBe('paused');
    store.getState().resume();
    expect(w.posted.at(-1)!.type).toBe('resume');
    store.getState().stop();
    expect(w.posted.at(-1)!.type).toBe('stop');
    expect(store.getState().status).toBe('stopping');
    store.getState().stop();
    expect(w.posted.filter((r) => r.type === 'stop')).toHaveLength(1);
    w.reply(ev(id, { type: 'done', summary: summary('interrupted') }));
    expect(store.getState().status).toBe('stopped');
    expect(w.terminated).toBe(true);
  });

  it('fails the run with the browser’s message when the worker script cannot load', () => {
    const { store, workers } = setup();
    store.getState().start(CONFIG, 'cpu');
    workers[0]!.onerror?.({ message: 'SyntaxError: Unexpected token', preventDefault() {} } as ErrorEvent);
    expect(store.getState().status).toBe('failed');
    expect(store.getState().error).toEqual({ name: 'WorkerError', message: 'SyntaxError: Unexpected token' });
    expect(workers[0]!.terminated).toBe(true);
  });

  it('fails the run when no worker can be created', () => {
    const store = createRunStore(() => {
      throw new Error('Worker is not defined');
    });
    store.getState().start(CONFIG, 'cpu');
    expect(store.getState().status).toBe('failed');
    expect(store.getState().error?.message).toBe('Worker is not defined');
  });
});
