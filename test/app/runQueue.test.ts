import { describe, expect, it } from 'vitest';
import { getConfigValue } from '../../src/core/experiment/config';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import { compareRuns, formatComparisonTable } from '../../src/core/experiment/comparison';
import { expandSweep } from '../../src/core/experiment/sweep';
import { comparisonMarkdown } from '../../src/app/runs/comparison';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { RunRecorder } from '../../src/app/worker/runRecorder';
import {
  createQueue,
  parseAxes,
  parseSeeds,
  populationPlan,
  queueProgress,
  runQueue,
} from '../../src/app/runs/runQueue';
import { createRunsStore } from '../../src/app/runs/storedRunsStore';
import { MemoryLocks, runLockName } from '../../src/app/runs/runLocks';
import type { WorkerRequest, WorkerResponse } from '../../src/app/worker/protocol';
import { createRunStore } from '../../src/app/train/liveRunStore';
import type { WorkerLike } from '../../src/app/worker/protocol';
import type { TrainerEvent } from '../../src/engine/trainer/events';
import { lookupPreset } from '../support/presets';
import { summary } from './runFixtures';
import { freshRecord } from './runRecordFixtures';

/** Test success a fake run reports: depends on the schedule and the seed, so the table has something to show. */
const fakeSuccess = (schedule: string, seed: number) => (schedule.length % 5) / 5 + seed / 100;

/** A worker stand-in that behaves like the real one towards storage: records its events, then replies. */
/** Runs in flight across every fake worker, and the most at once (for the two-lane test). */
const inFlight = { now: 0, most: 0 };

class RecordingWorker implements WorkerLike {
  onmessage: ((event: MessageEvent<WorkerResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  constructor(
    private readonly repo: MemoryRunRepository,
    readonly starts: WorkerRequest[],
  ) {}
  postMessage(message: WorkerRequest): void {
    if (message.type === 'start') {
      this.starts.push(message);
      void this.simulate(message);
    }
  }
  terminate(): void {}
  private async simulate(m: Extract<WorkerRequest, { type: 'start' }>) {
    const reply = (r: WorkerResponse) => this.onmessage?.({ data: r } as MessageEvent<WorkerResponse>);
    inFlight.most = Math.max(inFlight.most, ++inFlight.now);
    const rec = await RunRecorder.open(this.repo, m.record!.runId);
    reply({ type: 'backend', id: m.id, backend: 'cpu', skipped: [] });
    const c = m.config;
    const s = summary('completed', 10);
    const events: TrainerEvent[] = [
      { type: 'stage', stage: 'student', status: 'start', totalSteps: 2 },
      { type: 'step', stage: 'student', step: 1, totalSteps: 2, metrics: { step: 1, 'rollout/success_rate': 0.1 } },
      { type: 'step', stage: 'student', step: 2, totalSteps: 2, metrics: { step: 2, 'rollout/success_rate': 0.2 } },
    ];
    for (const e of events) rec.record(e);
    const done: TrainerEvent = {
      type: 'done',
      summary: {
        ...s,
        seed: c.seed,
        schedule: c.student.schedule,
        test: { ...s.test, successRate: fakeSuccess(c.student.schedule, c.seed) },
        wallSeconds: c.seed + 1,
      },
    };
    rec.record(done);
    await rec.flush();
    inFlight.now--;
    reply({ type: 'events', id: m.id, events: [...events, done] });
  }
}

/**
 * A worker stand-in that trains riders as the real one does towards storage: a leader with riders records step 1
 * for each, stores each rider's checkpoint there and detaches it (RunRecorder.detach, then the 'ride' message),
 * and only then — once `leaderGoesOn` resolves — finishes its own run. A resume continues the stored run to its end.
 */
class RidingWorker implements WorkerLike {
  onmessage: ((event: MessageEvent<WorkerResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  constructor(
    private readonly repo: MemoryRunRepository,
    private readonly lane: string,
    private readonly log: string[],
    private readonly leaderGoesOn: () => Promise<void>,
  ) {}
  postMessage(message: WorkerRequest): void {
    if (message.type === 'start') void this.simulate(message);
  }
  terminate(): void {}
  private async simulate(m: Extract<WorkerRequest, { type: 'start' }>) {
    const reply = (r: WorkerResponse) => this.onmessage?.({ data: r } as MessageEvent<WorkerResponse>);
    const c = m.config;
    const rec = await RunRecorder.open(this.repo, m.record!.runId);
    reply({ type: 'backend', id: m.id, backend: 'cpu', skipped: [] });
    this.log.push(`${this.lane} ${m.record!.continuation ? 'continues' : 'starts'} ${c.student.schedule}`);
    for (const rider of m.riders ?? []) {
      const r = await RunRecorder.open(this.repo, rider.runId);
      r.record({ type: 'step', stage: 'student', step: 1, totalSteps: 2, metrics: { step: 1 } });
      await this.repo.checkpoints(rider.runId).write('student-000001', new Map([['state.json', new Uint8Array(1)]]));
      await r.detach('student-000001', 1);
      reply({ type: 'ride', id: m.id, runId: rider.runId, end: 'detached', step: 1, reason: 'its schedule differs' });
    }
    if (m.riders?.length) await this.leaderGoesOn();
    const s = summary('completed', 10);
    const done: TrainerEvent = {
      type: 'done',
      summary: { ...s, seed: c.seed, schedule: c.student.schedule, wallSeconds: 1 },
    };
    rec.record(done);
    await rec.flush();
    this.log.push(`${this.lane} ends ${c.student.schedule}`);
    reply({ type: 'events', id: m.id, events: [done] });
  }
}

function setup(repo = new MemoryRunRepository()) {
  const starts: WorkerRequest[] = [];
  const runStore = createRunStore(() => new RecordingWorker(repo, starts), { sharedControl: false });
  let t = 1000;
  const runs = createRunsStore(
    async () => repo,
    runStore,
    async () => null,
    () => t++,
  );
  return { repo, starts, runStore, runs };
}

const schedules = () => loadPreset('schedules', lookupPreset, PRESET_NAMES);

/**
 * The fake worker above trains no riders: these queues run one run at a time (a population's stored runs against
 * the runs made alone: runPopulation.e2e.test.ts, with the real worker).
 */
const ONE_AT_A_TIME = 1;

/** A queue of the schedules preset under `arms`, run one at a time. */
const oneByOne = (seeds: number[], arms: string[]) =>
  createQueue(schedules(), [], 'cpu', seeds, { 'student.schedule': arms }, undefined, ONE_AT_A_TIME);

describe('the run queue', () => {
  it('reads seeds and axes as the sweep CLI does, naming the field on error', () => {
    expect(parseSeeds('0, 1,2')).toEqual([0, 1, 2]);
    expect(() => parseSeeds('0,-1')).toThrow('seeds: expected comma-separated integers ≥ 0');
    // the queue's seeds are the sweep CLI's: no hexadecimal, exponent, signed zero or duplicate
    for (const [text, why] of [
      ['0x10', 'entry 1 of "0x10" is "0x10"'],
      ['1e2', 'entry 1 of "1e2" is "1e2"'],
      ['-0', 'entry 1 of "-0" is "-0"'],
      ['1,2,1', 'seed 1 is given twice'],
    ])
      expect(() => parseSeeds(text!), text).toThrow(why);
    expect(parseAxes('student.schedule=adaptive,never\n# note\nstudent.lambdaOpd=0.1,0.2')).toEqual({
      'student.schedule': ['adaptive', 'never'],
      'student.lambdaOpd': [0.1, 0.2],
    });
    expect(() => parseAxes('student.schedule')).toThrow('axes: "student.schedule": expected key=v1,v2');
  });

  it('expands a sweep preset into the same runs as npm run sweep (labels, points, configs)', () => {
    const preset = schedules();
    const q = createQueue(preset, ['student.steps=10'], 'wasm', [0, 1], null, 5);
    expect(q.items).toHaveLength(14);
    const base = { ...preset.config, student: { ...preset.config.student, steps: 10 } };
    const cli = expandSweep(base, { seeds: [0, 1], axes: preset.sweep!.axes });
    expect(q.items.map((i) => i.label)).toEqual(cli.map((r) => r.label));
    expect(q.items.map((i) => i.config)).toEqual(cli.map((r) => r.config));
    expect(q.items[0]).toMatchObject({ label: 'student.schedule=adaptive seed=0', status: 'pending', runId: null });
    expect(() => createQueue(preset, [], 'wasm', [0], { 'student.shedule': ['never'] })).toThrow(
      'unknown key "student.shedule"',
    );
  });

  it('packs the items of one trajectory key into populations of at most the population size, in queue order', () => {
    const axes = { 'student.schedule': ['adaptive', 'never', 'competence-only', 'none'] };
    const q = createQueue(schedules(), [], 'wasm', [0, 1], axes, 5, 3);
    const labels = (i: number) => q.items[i]!.label;
    const plan = populationPlan(q).map((p) => [labels(p.leader), ...p.riders.map(labels)]);
    // none (pure GRPO) skips the teacher stage: another trajectory key, no one's rider; seeds never share
    expect(plan).toEqual([
      ['student.schedule=adaptive seed=0', 'student.schedule=never seed=0', 'student.schedule=competence-only seed=0'],
      ['student.schedule=adaptive seed=1', 'student.schedule=never seed=1', 'student.schedule=competence-only seed=1'],
      ['student.schedule=none seed=0'],
      ['student.schedule=none seed=1'],
    ]);
    expect(
      populationPlan(createQueue(schedules(), [], 'wasm', [0, 1], axes, 5, 1)).every((p) => p.riders.length === 0),
    ).toBe(true);
    expect(() => createQueue(schedules(), [], 'wasm', [0], axes, 5, 0)).toThrow(
      'population size: expected an integer ≥ 1, got 0',
    );
  });

  it('packs no population in a temperature-matched queue: a matched arm is set only once its reference ended', () => {
    const q = createQueue(loadPreset('actobs-vs-actionsft', lookupPreset, PRESET_NAMES), [], 'cpu', [0], null, 5, 4);
    expect(populationPlan(q).every((p) => p.riders.length === 0)).toBe(true);
  });

  it('reports progress over the queue and an ETA from the time so far', () => {
    const q = createQueue(schedules(), [], 'wasm', [0], {
      'student.schedule': ['adaptive', 'never', 'none', 'fixed:30'],
    });
    q.items[0]!.status = 'completed';
    q.items[1]!.status = 'running';
    // 1 done + half of the second = 1.5 of 4 in 30 s → 2.5 left at 20 s each = 50 s
    expect(queueProgress(q, 0.5, 30)).toEqual({ done: 1, total: 4, fraction: 0.375, etaSeconds: 50 });
  });

  it('runs every point and seed one after another, each a stored run, and the tab’s table equals the CLI’s', async () => {
    const { repo, starts, runs } = setup();
    const preset = schedules();
    const queue = createQueue(
      preset,
      [],
      'cpu',
      [0, 1],
      { 'student.schedule': ['adaptive', 'never', 'none'] },
      undefined,
      ONE_AT_A_TIME,
    );
    const saved: string[][] = [];
    const done = await runQueue(queue, repo, runs, (q) => void saved.push(q.items.map((i) => i.status)));
    expect(done.state).toBe('done');
    expect(done.items.every((i) => i.status === 'completed' && i.runId !== null)).toBe(true);
    expect(starts).toHaveLength(6);
    expect((await repo.listQueues())[0]).toMatchObject({ id: queue.id, state: 'done' });
    const records = await repo.listRuns();
    expect(records.map((r) => r.label)).toEqual(queue.items.map((i) => i.label));
    // the CLI: the same points and summaries, through compareRuns + formatComparisonTable
    const cli = formatComparisonTable(
      compareRuns(
        done.items.map((i) => {
          const r = records.find((x) => x.id === i.runId)!;
          return { point: i.point, summary: r.summary! };
        }),
      ),
    );
    expect(comparisonMarkdown(records)).toBe(cli);
    expect(cli.split('\n')[2]).toBe(
      // ± the 95 % interval of two seeds 1 point apart: t(0.975, 1) · 0.707 / √2 = 12.706 · 0.5 = 6.4; no
      // validation curve in these fake runs, so no step reaches 0.9·S_T (–, –)
      `| adaptive | 2 | ${(100 * (fakeSuccess('adaptive', 0) + 0.005)).toFixed(1)} ± 6.4 | –, – | 10, 10 | 10.0 | 1.5 |`,
    );
    expect(getConfigValue(records[2]!.config, 'student.schedule')).toBe('never');
  });

  it('runs two at a time in two lanes, in queue order, with the same stored runs and table as one lane', async () => {
    const one = setup();
    const queue = oneByOne([0, 1], ['adaptive', 'never', 'none']);
    const sequential = await runQueue(queue, one.repo, one.runs, () => undefined);
    const a = setup();
    const b = setup(a.repo);
    inFlight.most = 0;
    const parallel = await runQueue(queue, a.repo, [a.runs, b.runs], () => undefined);
    expect(inFlight.most).toBe(2);
    expect(a.starts.length).toBeGreaterThan(0);
    expect(b.starts.length).toBeGreaterThan(0);
    expect(a.starts.length + b.starts.length).toBe(6);
    expect(parallel.state).toBe('done');
    expect(parallel.items.map((i) => i.status)).toEqual(sequential.items.map((i) => i.status));
    expect(comparisonMarkdown(await a.repo.listRuns())).toBe(comparisonMarkdown(await one.repo.listRuns()));
  });

  it('hands a rider that left its leader to the idle lane, which continues it while the leader still trains', async () => {
    const repo = new MemoryRunRepository();
    const log: string[] = [];
    // the leader finishes only once the rider is continued elsewhere (no timer: a queue that never hands the rider on
    // keeps the leader waiting, and the test fails at its timeout)
    let continued = () => {};
    const handedOn = new Promise<void>((resolve) => (continued = resolve));
    const leaderGoesOn = () => handedOn;
    const locks = new MemoryLocks();
    const lane = (name: string) => {
      const runStore = createRunStore(() => new RidingWorker(repo, name, log, leaderGoesOn), { sharedControl: false });
      let t = 1000;
      return createRunsStore(
        async () => repo,
        runStore,
        async () => null,
        () => t++,
        { locks, broadcast: () => {} },
      );
    };
    const a = lane('A');
    const b = lane('B');
    b.subscribe(() => {
      if (log.includes('B continues never')) continued();
    });
    const queue = createQueue(schedules(), [], 'cpu', [0], { 'student.schedule': ['adaptive', 'never'] }, 5, 2);
    expect(populationPlan(queue)).toEqual([{ leader: 0, riders: [1] }]);
    const done = await runQueue(queue, repo, [a, b], () => undefined);
    // B continued the rider before A's leader ended (the two ends then come in either order)
    expect(log.slice(0, 2)).toEqual(['A starts adaptive', 'B continues never']);
    expect(log.slice(2).sort()).toEqual(['A ends adaptive', 'B ends never']);
    expect(done.state).toBe('done');
    expect(done.items.map((i) => i.status)).toEqual(['completed', 'completed']);
    const never = (await repo.getRun(done.items[1]!.runId!))!;
    expect([never.status, never.detachedAt]).toEqual(['completed', 1]);
    // every lock let go: the runs can be continued in another tab
    for (const item of done.items) expect(await locks.tryAcquire(runLockName(item.runId!))).not.toBeNull();
  });

  it('keeps a temperature-matched queue in one lane: its matched arm needs the reference arm first', async () => {
    const a = setup();
    const b = setup(a.repo);
    const preset = loadPreset('actobs-vs-actionsft', lookupPreset, PRESET_NAMES);
    const queue = createQueue(preset, [], 'cpu', [0], null);
    expect(queue.spec.matchTemperature).toBeDefined();
    const done = await runQueue(queue, a.repo, [a.runs, b.runs], () => undefined);
    expect(done.state).toBe('done');
    expect(b.starts).toHaveLength(0);
  });

  it('continues a stored queue after a reload: finished runs are kept, the rest run', async () => {
    const { repo, starts, runs } = setup();
    const queue = oneByOne([0], ['adaptive', 'never', 'none']);
    const first = await runQueue({ ...queue, items: queue.items.slice(0, 1) }, repo, runs, () => undefined);
    const reloaded = { ...queue, items: [first.items[0]!, ...queue.items.slice(1)] };
    const done = await runQueue(reloaded, repo, runs, () => undefined);
    expect(starts.map((s) => (s.type === 'start' ? s.config.student.schedule : ''))).toEqual([
      'adaptive',
      'never',
      'none',
    ]);
    expect(done.items.map((i) => i.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('starts a run a reload cut off before its first checkpoint again, keeping one stored run per item', async () => {
    const { repo, starts, runs } = setup();
    const queue = oneByOne([0], ['adaptive', 'never']);
    const first = await runQueue({ ...queue, items: queue.items.slice(0, 1) }, repo, runs, () => undefined);
    // what a reload leaves of a run that had no checkpoint yet: a running record without one, the item 'running'
    const cut = (await repo.getRun(first.items[0]!.runId!))!;
    await repo.putRun({ ...cut, status: 'running', checkpoint: null, summary: null });
    const reloaded = { ...queue, items: [{ ...first.items[0]!, status: 'running' as const }, ...queue.items.slice(1)] };
    const done = await runQueue(reloaded, repo, runs, () => undefined);
    expect(starts.map((s) => (s.type === 'start' ? s.config.student.schedule : ''))).toEqual([
      'adaptive',
      'adaptive',
      'never',
    ]);
    expect(done.items.map((i) => i.status)).toEqual(['completed', 'completed']);
    const stored = (await repo.listRuns()).filter((r) => r.queueId === queue.id);
    expect(stored.map((r) => r.label).sort()).toEqual(done.items.map((i) => i.label).sort());
    expect(await repo.getRun(cut.id)).toBeNull();
  });
  it('resumes a run a reload cut off before the queue stored its id, instead of starting a second one', async () => {
    const { repo, starts, runs } = setup();
    const queue = oneByOne([0], ['adaptive', 'never']);
    // the reload came after startRun wrote the record and a checkpoint, before the queue stored the run's id
    const item = queue.items[0]!;
    await repo.putRun({
      ...freshRecord('orphan'),
      config: item.config,
      seed: item.config.seed,
      backend: 'cpu',
      queueId: queue.id,
      queueIndex: 0,
      label: item.label,
      point: item.point,
      stage: 'student',
      step: 1,
      totalSteps: 2,
      checkpoint: 'student-000001',
      status: 'interrupted',
    });
    await repo.checkpoints('orphan').write('student-000001', new Map([['state.json', new Uint8Array([1])]]));
    await repo.append([{ runId: 'orphan', stage: 'student', step: 1, line: { step: 1 } }], []);
    const reloaded = { ...queue, items: [{ ...item, status: 'running' as const }, ...queue.items.slice(1)] };
    const done = await runQueue(reloaded, repo, runs, () => undefined);
    expect(starts.map((s) => (s.type === 'start' ? [s.config.student.schedule, s.record?.resume] : []))).toEqual([
      ['adaptive', true],
      ['never', false],
    ]);
    expect(done.items.map((i) => [i.status, i.runId === 'orphan'])).toEqual([
      ['completed', true],
      ['completed', false],
    ]);
    const stored = (await repo.listRuns()).filter((r) => r.queueId === queue.id);
    expect(stored.map((r) => r.label).sort()).toEqual(done.items.map((i) => i.label).sort());
  });

  it('keeps the completed run of an item a reload left with two records, and marks the item completed', async () => {
    const { repo, starts, runs } = setup();
    const queue = oneByOne([0], ['adaptive']);
    const first = await runQueue(queue, repo, runs, () => undefined);
    const finished = (await repo.getRun(first.items[0]!.runId!))!;
    // a second, partial record of the same item, and a queue that still names it and thinks it is running
    await repo.putRun({ ...freshRecord('partial'), queueId: queue.id, label: queue.items[0]!.label, updatedAt: 9e12 });
    const reloaded = { ...queue, items: [{ ...queue.items[0]!, runId: 'partial', status: 'running' as const }] };
    const done = await runQueue(reloaded, repo, runs, () => undefined);
    expect(starts).toHaveLength(1);
    expect(done.items.map((i) => [i.status, i.runId])).toEqual([['completed', finished.id]]);
    expect(done.state).toBe('done');
    expect(await repo.getRun('partial')).toBeNull();
  });
});

describe('the runs store', () => {
  it('lists a run a reload left running as interrupted, and resumes it from its checkpoint, trimmed', async () => {
    const { repo, starts, runs, runStore } = setup();
    await repo.putRun({
      ...freshRecord('old'),
      stage: 'student',
      step: 7,
      totalSteps: 20,
      backend: 'cpu',
      checkpoint: 'student-000005',
    });
    await repo.append(
      [1, 2, 3, 4, 5, 6, 7].map((step) => ({ runId: 'old', stage: 'student' as const, step, line: { step } })),
      [],
    );
    await repo.checkpoints('old').write('student-000005', new Map([['state.json', new Uint8Array([1])]]));
    await runs.getState().load();
    expect(runs.getState().runs.map((r) => [r.id, r.status])).toEqual([['old', 'interrupted']]);
    await runs.getState().resumeRun('old');
    expect(starts[0]).toMatchObject({ type: 'start', backend: 'cpu', record: { runId: 'old', resume: true } });
    expect((await repo.metrics('old')).map((m) => m.step)).toEqual([1, 2, 3, 4, 5]);
    expect(runStore.getState().steps.student.map((l) => l.step)).toEqual([1, 2, 3, 4, 5]);
    await runs.getState().runEnded();
    await runs.getState().refresh();
    expect(runs.getState().runs[0]!.status).toBe('completed');
  });

  it('refuses to resume a run without a checkpoint, saying why', async () => {
    const { repo, runs } = setup();
    await repo.putRun({ ...freshRecord('early'), status: 'stopped' });
    await runs.getState().resumeRun('early');
    expect(runs.getState().error).toBe(
      'Error: run early has no checkpoint to resume from (it stopped before its first checkpoint)',
    );
  });
});
