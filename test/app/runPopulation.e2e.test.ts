// The tab's queue trains populations (src/app/runs/runQueue.ts, src/app/worker/workerRiders.ts): a leader and the
// items of the same trajectory key that ride along its student stage. The real training worker runs in-thread in
// Node (cpu and wasm) behind the runs store, on the smoke preset under four schedules of one seed. Each member's stored run
// — record summary, metrics lines of every stage, events — must equal the same item's run made alone (a queue with
// population size 1), wall-clock fields aside, also when two lanes (two runs stores, each with its worker) train the
// queue and a rider that leaves is continued in the other lane; a population stopped mid-student-stage must resume,
// every member from its own checkpoint, to the numbers of the runs made alone.
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { createQueue, runQueue, type RunQueue } from '../../src/app/runs/runQueue';
import { createRunsStore, type RunsStore } from '../../src/app/runs/storedRunsStore';
import { MemoryLocks, type RunLocks } from '../../src/app/runs/runLocks';
import { createRunStore, type RunStore } from '../../src/app/train/liveRunStore';
import type { WorkerRequest } from '../../src/app/worker/protocol';
import { createInThreadWorker } from '../../src/app/worker/workerHandler';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import { initBackend } from '../../src/engine/backend';
import { lookupPreset } from '../support/presets';
import { withoutClock } from './workerHarness';

const SMOKE = loadPreset('smoke', lookupPreset, PRESET_NAMES);
/**
 * the lesson's arms in the smoke's size — RetireOPD, OPD throughout, pure GRPO (grpo-shell is retire-shell under
 * schedule none) — and a fixed retirement that leaves early. The smoke preset trains its teacher in the run, and a
 * GRPO run has no teacher stage: its trajectory key differs, so it is no one's rider and runs alone.
 */
const AXES = { 'student.schedule': ['adaptive', 'never', 'fixed:5', 'none'] };
const BACKENDS = ['cpu', 'wasm'] as const;

interface Setup {
  repo: MemoryRunRepository;
  runStore: RunStore;
  runs: RunsStore;
  starts: WorkerRequest[];
  run(queue: RunQueue): Promise<RunQueue>;
}

function setup(repo = new MemoryRunRepository(), locks: RunLocks = new MemoryLocks()): Setup {
  const starts: WorkerRequest[] = [];
  const runStore = createRunStore(
    () => {
      const worker = createInThreadWorker({
        startBackend: (b) => initBackend(b),
        openRepository: async () => repo,
        loadTeacher: async () => null,
      });
      const post = worker.postMessage.bind(worker);
      worker.postMessage = (m) => {
        if (m.type === 'start') starts.push(m);
        post(m);
      };
      return worker;
    },
    { sharedControl: false },
  );
  let t = 1000;
  const runs = createRunsStore(
    async () => repo,
    runStore,
    async () => null,
    () => t++,
    { locks, broadcast: () => {} },
  );
  return { repo, runStore, runs, starts, run: (queue) => runQueue(queue, repo, runs, () => undefined) };
}

/** What a stored run shows: its summary, its lines of every stage and its events, wall-clock fields aside. */
async function storedRun(repo: MemoryRunRepository, queue: RunQueue, label: string) {
  const runId = queue.items.find((i) => i.label === label)!.runId!;
  const record = (await repo.getRun(runId))!;
  return {
    status: record.status,
    summary: withoutClock(record.summary),
    lines: withoutClock((await repo.metrics(runId)).map((m) => [m.stage, m.step, m.line])),
    events: withoutClock((await repo.events(runId)).map((e) => [e.stage, e.step, e.event])),
  };
}

type Stored = Awaited<ReturnType<typeof storedRun>>;

/** A resumed run against the run made alone: the same summary and student lines, each step once. */
function sameNumbers(made: Stored, ref: Stored, label: string): void {
  expect(made.summary, label).toEqual(ref.summary);
  const student = (x: Stored) => (x.lines as [string, number, unknown][]).filter((l) => l[0] === 'student');
  expect(student(made), label).toEqual(student(ref));
}

describe.each(BACKENDS)('a population in the tab’s queue on %s', (backend) => {
  let alone: Setup;
  let aloneQueue: RunQueue;

  beforeAll(async () => {
    await initBackend(backend);
    alone = setup();
    aloneQueue = await alone.run(createQueue(SMOKE, [], backend, [0], AXES, 1, 1));
    // four smoke runs one after another: a few tens of seconds on a quiet machine, past two minutes on a loaded CI
  }, 600_000);

  it('trains RetireOPD with OPD throughout and fixed:5 riding, GRPO alone, each stored run equal to its run made alone', async () => {
    const pop = setup();
    const queue = await pop.run(createQueue(SMOKE, [], backend, [0], AXES, 1, 4));
    expect(queue.state).toBe('done');
    // one start with two riders, then each rider continued from where it left (unannounced)
    expect(
      pop.starts.map((s) => (s.type === 'start' ? [s.riders?.length ?? 0, s.record?.continuation ?? false] : null)),
    ).toEqual([
      [2, false],
      [0, true],
      [0, true],
      [0, false],
    ]);
    for (const item of aloneQueue.items) {
      const made = await storedRun(pop.repo, queue, item.label);
      expect(made.status, item.label).toBe('completed');
      expect(made, item.label).toEqual(await storedRun(alone.repo, aloneQueue, item.label));
    }
    // the riders left where their schedules first planned a step differently from RetireOPD's
    const never = await pop.repo.getRun(queue.items[1]!.runId!);
    const fixed = await pop.repo.getRun(queue.items[2]!.runId!);
    expect(fixed!.detachedAt).toBe(5);
    expect((await pop.repo.getRun(queue.items[3]!.runId!))!.detachedAt).toBeUndefined();
    expect(never!.detachedAt).toBe((await pop.repo.getRun(queue.items[0]!.runId!))!.triggerStep);
  }, 600_000);

  it('in two lanes, hands a rider that leaves to the free lane while its leader trains, each stored run equal to its run made alone', async () => {
    // two runs stores on one storage and one page's locks, each with its own worker, as the tab's two lanes
    const locks = new MemoryLocks();
    const a = setup(new MemoryRunRepository(), locks);
    const b = setup(a.repo, locks);
    // no GRPO arm: lane B has nothing to start, and waits for a rider to leave RetireOPD in lane A
    const arms = { 'student.schedule': ['adaptive', 'never', 'fixed:5'] };
    const order: string[] = [];
    const leaderEnds = a.runStore.subscribe((s) => {
      if (s.status === 'completed') {
        leaderEnds();
        order.push('A: RetireOPD ends');
      }
    });
    let seen: number | null = null;
    b.runStore.subscribe((s) => {
      if (s.runId === seen) return;
      seen = s.runId;
      order.push(`B: ${s.config!.student.schedule} continues`);
    });
    const queue = await runQueue(createQueue(SMOKE, [], backend, [0], arms, 1, 3), a.repo, [a.runs, b.runs], () => {});
    expect(queue.state).toBe('done');
    expect(a.starts.map((s) => (s.type === 'start' ? (s.riders?.length ?? 0) : null))[0]).toBe(2);
    // fixed:5 leaves after step 5 and lane B continues it while RetireOPD still trains in lane A
    expect(order.slice(0, 2)).toEqual(['B: fixed:5 continues', 'A: RetireOPD ends']);
    expect([...a.starts, ...b.starts].filter((s) => s.type === 'start' && s.record?.continuation)).toHaveLength(2);
    for (const item of queue.items) {
      const made = await storedRun(a.repo, queue, item.label);
      expect(made.status, item.label).toBe('completed');
      expect(made, item.label).toEqual(await storedRun(alone.repo, aloneQueue, item.label));
    }
  }, 600_000);

  // the resumes on wasm only (the tab's backend): on cpu each adds a minute or more to CI for the same code path
  it.runIf(backend === 'wasm')(
    'resumes a population stopped mid-student-stage: every member from its own checkpoint, to the same numbers',
    async () => {
      const pop = setup();
      const stopAt = pop.runStore.subscribe((s) => {
        if (s.stage === 'student' && s.step >= 3 && s.status === 'running') {
          stopAt();
          pop.runStore.getState().stop();
        }
      });
      const first = await pop.run(createQueue(SMOKE, [], backend, [0], AXES, 1, 4));
      expect(first.state).toBe('paused');
      // GRPO, no one's rider, has not started
      expect(first.items.map((i) => i.status)).toEqual(['stopped', 'stopped', 'stopped', 'pending']);
      const stopped = await Promise.all(first.items.slice(0, 3).map((i) => pop.repo.getRun(i.runId!)));
      // the leader and OPD throughout (still riding) each wrote an interrupt checkpoint at the leader's step; fixed:5
      // stopped there too, or had left after step 5 and waits at its own checkpoint
      const [leader, never, fixed] = stopped.map((r) => r!);
      expect(leader!.status).toBe('stopped');
      expect(never!.status).toBe('stopped');
      expect(never!.checkpoint).toBe(leader!.checkpoint);
      expect(leader!.step).toBeLessThan(10);
      if (fixed!.detachedAt === 5)
        expect([fixed!.status, fixed!.checkpoint]).toEqual(['interrupted', 'student-000005']);
      else expect([fixed!.status, fixed!.checkpoint]).toEqual(['stopped', leader!.checkpoint]);
      const resumed = await pop.run(first);
      expect(resumed.state).toBe('done');
      for (const item of aloneQueue.items) {
        sameNumbers(
          await storedRun(pop.repo, resumed, item.label),
          await storedRun(alone.repo, aloneQueue, item.label),
          item.label,
        );
      }
    },
    600_000,
  );

  it.runIf(backend === 'wasm')(
    'leaves the riders of a leader cut off by a full storage interrupted, each resumed from its own checkpoint',
    async () => {
      // the storage refuses one write as Chromium does on a full disk: the leader's checkpoint after student step 10,
      // while OPD throughout still rides (it leaves at the trigger, step 10, once step 11 begins)
      const repo = new MemoryRunRepository();
      const checkpoints = repo.checkpoints.bind(repo);
      let refused = false;
      repo.checkpoints = (runId) => {
        const store = checkpoints(runId);
        return {
          ...store,
          write: async (name, files) => {
            if (name === 'student-000010' && !refused) {
              refused = true;
              throw Object.assign(new Error('Failed to write blobs (IOError)'), { name: 'DataError' });
            }
            return store.write(name, files);
          },
        };
      };
      const pop = setup(repo);
      let saved: RunQueue | null = null;
      const save = (q: RunQueue) => {
        saved = q;
      };
      const queue = createQueue(SMOKE, [], backend, [0], AXES, 1, 4);
      await expect(runQueue(queue, repo, pop.runs, save)).rejects.toThrow(/browser storage is full/);
      expect(refused).toBe(true);
      const first = saved! as RunQueue;
      expect(first.state).toBe('paused');
      const byLabel = async (label: string) =>
        (await repo.listRuns()).find((r) => r.queueId === queue.id && r.label === label)!;
      const [leader, never] = [await byLabel(queue.items[0]!.label), await byLabel(queue.items[1]!.label)];
      const full =
        /^browser storage is full while .* delete runs in the runs table \(or free disk space\) and continue$/;
      // the leader and its rider alike: interrupted with what to do, each at its own last stored checkpoint
      for (const r of [leader, never]) {
        expect(r.status, r.label!).toBe('interrupted');
        expect(r.error, r.label!).toMatch(full);
        expect(await repo.checkpoints(r.id).latest(), r.label!).toBe('student-000005');
      }
      expect(pop.runStore.getState().status).toBe('interrupted');
      pop.starts.length = 0;
      // room made: the queue goes on, every member from its own stored run — none starts from scratch
      const resumed = await runQueue(first, repo, pop.runs, save);
      expect(resumed.state).toBe('done');
      const starts = pop.starts.map((s) => (s.type === 'start' ? s.record : null));
      expect(starts.filter((r) => r?.runId === never.id)).toEqual([{ runId: never.id, resume: true }]);
      expect(starts.filter((r) => r?.runId === leader.id)).toEqual([{ runId: leader.id, resume: true }]);
      for (const item of aloneQueue.items) {
        sameNumbers(
          await storedRun(repo, resumed, item.label),
          await storedRun(alone.repo, aloneQueue, item.label),
          item.label,
        );
      }
    },
    600_000,
  );

  it.runIf(backend === 'wasm')(
    'keeps no stored run of a rider whose leader was stopped before its student stage, and takes it along on resume',
    async () => {
      const pop = setup();
      const stopAt = pop.runStore.subscribe((s) => {
        if (s.stage === 'sft' && s.status === 'running') {
          stopAt();
          pop.runStore.getState().stop();
        }
      });
      const first = await pop.run(createQueue(SMOKE, [], backend, [0], AXES, 1, 4));
      expect(first.state).toBe('paused');
      expect(first.items.map((i) => i.status)).toEqual(['stopped', 'pending', 'pending', 'pending']);
      expect((await pop.repo.listRuns()).map((r) => r.label)).toEqual([first.items[0]!.label]);
      pop.starts.length = 0;
      const resumed = await pop.run(first);
      expect(resumed.state).toBe('done');
      // the leader resumed mid-SFT with its riders; each later continued alone
      expect(
        pop.starts.map((s) => (s.type === 'start' ? [s.riders?.length ?? 0, s.record?.resume ?? false] : null)),
      ).toEqual([
        [2, true],
        [0, true],
        [0, true],
        [0, false],
      ]);
      for (const item of aloneQueue.items) {
        sameNumbers(
          await storedRun(pop.repo, resumed, item.label),
          await storedRun(alone.repo, aloneQueue, item.label),
          item.label,
        );
      }
    },
  );
});

/** Agreement asked on webgpu, as of the trainer's webgpu-vs-wasm parity test: |got − ref| ≤ ATOL + RTOL·|ref|. */
const RTOL = 1e-3;
const ATOL = 1e-4;

/** Every number of `got` against `ref` at the same path, within the tolerance; everything else equal. */
function closeTo(got: unknown, ref: unknown, path: string, worst: { rel: number; at: string }): void {
  if (typeof ref === 'number' && typeof got === 'number') {
    const err = Math.abs(got - ref);
    if (!(err <= ATOL + RTOL * Math.abs(ref)) && !(Number.isNaN(got) && Number.isNaN(ref)))
      expect.fail(`${path}: population ${got} vs alone ${ref}`);
    const rel = err / Math.max(Math.abs(ref), 1e-6);
    if (rel > worst.rel) Object.assign(worst, { rel, at: path });
    return;
  }
  if (ref !== null && typeof ref === 'object') {
    expect(got !== null && typeof got === 'object', path).toBe(true);
    const keys = Object.keys(ref);
    expect(Object.keys(got as object).sort(), path).toEqual([...keys].sort());
    for (const k of keys)
      closeTo((got as Record<string, unknown>)[k], (ref as Record<string, unknown>)[k], `${path}.${k}`, worst);
    return;
  }
  expect(got, path).toEqual(ref);
}

// webgpu (Dawn on SwiftShader in Node): a GPU need not reduce in the same order in two runs, so a member is held to
// the webgpu-vs-wasm parity test's tolerance, and to the same trigger step and test success, not to bit equality
// (the console says whether it was bit-equal anyway). Three members: RetireOPD leading, OPD throughout and fixed:5
// riding.
describe('a population in the tab’s queue on webgpu', () => {
  const axes = { 'student.schedule': ['adaptive', 'never', 'fixed:5'] };

  it('trains a population of three whose members match their runs made alone', async () => {
    await initBackend('webgpu');
    const alone = setup();
    const aloneQueue = await alone.run(createQueue(SMOKE, [], 'webgpu', [0], axes, 1, 1));
    const pop = setup();
    const queue = await pop.run(createQueue(SMOKE, [], 'webgpu', [0], axes, 1, 3));
    expect(queue.state).toBe('done');
    expect(pop.starts.map((s) => (s.type === 'start' ? (s.riders?.length ?? 0) : null))).toEqual([2, 0, 0]);
    const worst = { rel: 0, at: '' };
    let bitEqual = true;
    for (const item of aloneQueue.items) {
      const made = await storedRun(pop.repo, queue, item.label);
      const ref = await storedRun(alone.repo, aloneQueue, item.label);
      expect(made.status, item.label).toBe('completed');
      const [m, r] = [made.summary as RunSummaryLike, ref.summary as RunSummaryLike];
      expect(m.backend, item.label).toBe('webgpu');
      expect(m.gate.triggerStep, item.label).toBe(r.gate.triggerStep);
      expect(m.test.successRate, item.label).toBe(r.test.successRate);
      closeTo(made, ref, item.label, worst);
      bitEqual &&= JSON.stringify(made) === JSON.stringify(ref);
    }
    console.log(
      `webgpu population vs alone: ${bitEqual ? 'bit-equal' : `worst relative difference ${worst.rel.toExponential(2)} (${worst.at})`}`,
    );
  }, 1_200_000);
});

interface RunSummaryLike {
  backend: string;
  gate: { triggerStep: number | null };
  test: { successRate: number };
}
