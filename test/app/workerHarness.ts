// The test harness of the training worker's handler (src/app/worker/workerHandler.ts) in Node: a handler with
// Node's deps that records every message it posts and lets a test wait on them, the start request on the smoke
// preset, and the matchers and shared control flags the worker tests use.
import { initBackend } from '../../src/engine/backend';
import {
  CONTROL_SLOTS,
  type BackendChoice,
  type WorkerRequest,
  type WorkerResponse,
} from '../../src/app/worker/protocol';
import { createWorkerHandler, type WorkerDeps } from '../../src/app/worker/workerHandler';
import type { ExperimentConfig } from '../../src/core/experiment/config';
import type { RunSummary } from '../../src/core/experiment/summary';
import { loadPreset } from '../../src/core/experiment/preset';
import type { TrainerEvent } from '../../src/engine/trainer/events';
import { lookupPreset } from '../support/presets';

export const SMOKE: ExperimentConfig = loadPreset('smoke', lookupPreset).config;

/** wall-clock fields: the only ones allowed to differ between two runs of the same seed */
export const CLOCK_KEYS = (k: string): boolean => k.startsWith('time/') || k === 'wallSeconds' || k === 'stepMs';
export const withoutClock = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (k, v: unknown) => (CLOCK_KEYS(k) ? undefined : v)));

export type Step = Extract<TrainerEvent, { type: 'step' }>;

/** A handler with Node's deps, every message it posts, and waits on them. */
export function harness(extra: Partial<WorkerDeps> = {}) {
  const messages: WorkerResponse[] = [];
  const waiters: { match: (m: WorkerResponse) => boolean; resolve: (m: WorkerResponse) => void }[] = [];
  /** reacts synchronously to each message, as the trainer posts it (before the trainer goes on) */
  let react: (m: WorkerResponse) => void = () => undefined;
  let polls = 0;
  const pollWaiters: { at: number; resolve: () => void }[] = [];
  const deps: WorkerDeps = {
    startBackend: (backend) => initBackend(backend),
    openRepository: null,
    loadTeacher: async () => null,
    // the hold's waits, counted: a test can wait until a held run has re-read its flags n times
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        polls++;
        for (const w of pollWaiters.splice(0))
          if (polls >= w.at) w.resolve();
          else pollWaiters.push(w);
        setTimeout(resolve, ms);
      }),
    ...extra,
  };
  const handler = createWorkerHandler((m) => {
    messages.push(m);
    react(m);
    for (const w of [...waiters])
      if (w.match(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
  }, deps);
  const events = (id: number): TrainerEvent[] =>
    messages.flatMap((m) => (m.type === 'events' && m.id === id ? m.events : []));
  return {
    messages,
    handler,
    send: (request: WorkerRequest) => handler.handle(request),
    events,
    steps: (id: number) => events(id).filter((e): e is Step => e.type === 'step'),
    onMessage(f: (m: WorkerResponse) => void) {
      react = f;
    },
    /** the next message (posted from now on) that matches */
    next: (match: (m: WorkerResponse) => boolean) =>
      new Promise<WorkerResponse>((resolve) => waiters.push({ match, resolve })),
    /** resolves once the held run has waited `n` more times */
    polls: (n: number) => new Promise<void>((resolve) => pollWaiters.push({ at: polls + n, resolve })),
  };
}
export type Harness = ReturnType<typeof harness>;

/** A probe host that only calls `at` at each step boundary (unbatched, before the run's hold there). */
export const atBoundary = (at: (stage: string, step: number) => void): Partial<WorkerDeps> => ({
  createProbe: () => ({ setEnv: () => undefined, observe: () => undefined, at, close: () => undefined }),
});

export const start = (
  id: number,
  extra: { backend?: BackendChoice; control?: SharedArrayBuffer; record?: { runId: string; resume: boolean } } = {},
): WorkerRequest => ({
  type: 'start',
  id,
  config: SMOKE,
  backend: extra.backend ?? 'wasm',
  control: extra.control ?? null,
  record: extra.record ?? null,
});

export const isEnd = (id: number) => (m: WorkerResponse) =>
  (m.type === 'failed' && m.id === id) ||
  (m.type === 'events' && m.id === id && m.events.some((e) => e.type === 'done'));
export const isControl = (id: number, state: string) => (m: WorkerResponse) =>
  m.type === 'control' && m.id === id && m.state === state;

export function summaryOf(h: Harness, id: number): RunSummary {
  const done = h.events(id).find((e) => e.type === 'done');
  if (!done || done.type !== 'done') throw new Error(`run ${id} posted no 'done'`);
  return done.summary;
}

export const sharedFlags = () => {
  const buffer = new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT);
  return { buffer, flags: new Int32Array(buffer) };
};
