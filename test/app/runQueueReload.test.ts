import { describe, expect, it } from 'vitest';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import type { TrainedStage } from '../../src/app/runs/runRecord';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { RunRecorder } from '../../src/app/worker/runRecorder';
import { createQueue, runQueue, type RunQueue } from '../../src/app/runs/runQueue';
import { createRunsStore } from '../../src/app/runs/storedRunsStore';
import { MemoryLocks } from '../../src/app/runs/runLocks';
import type { WorkerLike, WorkerRequest, WorkerResponse } from '../../src/app/worker/protocol';
import { createRunStore } from '../../src/app/train/liveRunStore';
import type { TrainerEvent } from '../../src/engine/trainer/events';
import { lookupPreset } from '../support/presets';
import { summary } from './runFixtures';
import { freshRecord } from './runRecordFixtures';

/**
 * A worker stand-in for one lane: logs what it starts ("A resumes adaptive with never"), then finishes the run once
 * `goOn(schedule)` resolves — so a test holds a run open until another lane has done something, with no timer.
 */
class LaneWorker implements WorkerLike {
  onmessage: ((event: MessageEvent<WorkerResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  constructor(
    private readonly repo: MemoryRunRepository,
    private readonly lane: string,
    private readonly log: string[],
    private readonly goOn: (schedule: string) => Promise<void>,
  ) {}
  postMessage(message: WorkerRequest): void {
    if (message.type === 'start') void this.simulate(message);
  }
  terminate(): void {}
  private async simulate(m: Extract<WorkerRequest, { type: 'start' }>) {
    const reply = (r: WorkerResponse) => this.onmessage?.({ data: r } as MessageEvent<WorkerResponse>);
    const c = m.config;
    reply({ type: 'backend', id: m.id, backend: 'cpu', skipped: [] });
    const riders = (m.riders ?? []).map((r) => r.config.student.schedule);
    this.log.push(
      `${this.lane} ${m.record!.resume ? 'resumes' : 'starts'} ${c.student.schedule}` +
        (riders.length ? ` with ${riders.join(', ')}` : ''),
    );
    await this.goOn(c.student.schedule);
    const s = summary('completed', 10);
    const done: TrainerEvent = { type: 'done', summary: { ...s, seed: c.seed, schedule: c.student.schedule } };
    for (const link of [{ runId: m.record!.runId, config: c }, ...(m.riders ?? [])]) {
      const rec = await RunRecorder.open(this.repo, link.runId);
      rec.record({ ...done, summary: { ...done.summary, schedule: link.config.student.schedule } });
      await rec.flush();
    }
    this.log.push(`${this.lane} ends ${c.student.schedule}`);
    reply({ type: 'events', id: m.id, events: [done] });
  }
}

/** Store a run record of queue item `index` as a reload leaves it, with a checkpoint after `at` steps of `stage`. */
async function storeRun(
  repo: MemoryRunRepository,
  q: RunQueue,
  index: number,
  id: string,
  at: [TrainedStage, number] | null,
) {
  const item = q.items[index]!;
  const [stage, step] = at ?? ['teacher', 0];
  const checkpoint = at ? `${stage}-${String(step).padStart(6, '0')}` : null;
  await repo.putRun({
    ...freshRecord(id),
    config: item.config,
    seed: item.config.seed,
    backend: 'cpu',
    queueId: q.id,
    queueIndex: index,
    label: item.label,
    point: item.point,
    stage: at ? stage : null,
    step,
    totalSteps: 60,
    checkpoint,
    status: 'interrupted',
  });
  if (!checkpoint) return;
  await repo.checkpoints(id).write(checkpoint, new Map([['state.json', new Uint8Array([1])]]));
  const lines = Array.from({ length: step }, (_, k) => ({ runId: id, stage, step: k + 1, line: { step: k + 1 } }));
  await repo.append(lines, []);
}

/**
 * Two lanes over one repository whose RetireOPD (adaptive) run ends only once `awaited` shows in the log — so a
 * queue that leaves the other lane idle keeps that run waiting, and the test fails at its timeout.
 */
function twoLanes(repo: MemoryRunRepository, awaited: (log: readonly string[]) => boolean) {
  const log: string[] = [];
  let seen = () => {};
  const going = new Promise<void>((resolve) => (seen = resolve));
  const goOn = (schedule: string) => (schedule === 'adaptive' ? going : Promise.resolve());
  const locks = new MemoryLocks();
  const lane = (name: string) => {
    let t = 1000;
    const runs = createRunsStore(
      async () => repo,
      createRunStore(() => new LaneWorker(repo, name, log, goOn), { sharedControl: false }),
      async () => null,
      () => t++,
      { locks, broadcast: () => {} },
    );
    runs.subscribe(() => {
      if (awaited(log)) seen();
    });
    return runs;
  };
  return { log, lanes: [lane('A'), lane('B')] };
}

describe('a run queue continued after a reload, in two lanes', () => {
  // GRPO skips the teacher stage: its trajectory key differs from RetireOPD's, so it never joins that group, whether
  // the reload left the rider 'running' (as the queue stores a rider) or 'pending' (as a failed leader leaves it)
  it.each(['running', 'pending'] as const)(
    'resumes GRPO in the second lane while the first resumes RetireOPD mid-teacher (its rider stored %s)',
    async (riderStatus) => {
      const repo = new MemoryRunRepository();
      // the leader ends only once the other lane has resumed GRPO
      const { log, lanes } = twoLanes(repo, (l) => l.some((x) => x.endsWith('resumes none')));
      const lesson = loadPreset('schedules', lookupPreset, PRESET_NAMES);
      const queue = createQueue(lesson, [], 'cpu', [0], { 'student.schedule': ['adaptive', 'never', 'none'] }, 5, 3);
      // the reload came while RetireOPD (its rider OPD throughout along) was in its teacher stage, and GRPO at its
      // student step 10 in the other lane
      await storeRun(repo, queue, 0, 'lead', ['teacher', 1]);
      await storeRun(repo, queue, 1, 'rider', null);
      await storeRun(repo, queue, 2, 'grpo', ['student', 10]);
      const reloaded: RunQueue = {
        ...queue,
        items: queue.items.map((item, i) => ({
          ...item,
          runId: ['lead', null, 'grpo'][i]!,
          status: i === 1 ? riderStatus : 'running',
        })),
      };
      const done = await runQueue(reloaded, repo, lanes, () => undefined);
      // A resumed the leader (its rider's stored record, without a checkpoint, keeps it from riding: it starts alone),
      // and B resumed GRPO before A's leader ended
      expect(log).toContain('A resumes adaptive');
      expect(log.indexOf('B resumes none')).toBeGreaterThanOrEqual(0);
      expect(log.indexOf('B resumes none')).toBeLessThan(log.indexOf('A ends adaptive'));
      expect(log.filter((l) => l.endsWith(' never'))).toHaveLength(2);
      expect(done.state).toBe('done');
      expect(done.items.map((i) => [i.status, i.runId])).toEqual([
        ['completed', 'lead'],
        ['completed', expect.any(String)],
        ['completed', 'grpo'],
      ]);
      // one stored run per item: the rider's stale record was replaced
      const stored = (await repo.listRuns()).filter((r) => r.queueId === queue.id);
      expect(stored.map((r) => r.label).sort()).toEqual(done.items.map((i) => i.label).sort());
    },
  );

  it('starts the population’s items that cannot ride in the free lane, not after the leader in its own', async () => {
    const repo = new MemoryRunRepository();
    // the leader ends only once the other lane has started OPD throughout
    const { log, lanes } = twoLanes(repo, (l) => l.includes('B starts never'));
    const lesson = loadPreset('schedules', lookupPreset, PRESET_NAMES);
    const queue = createQueue(lesson, [], 'cpu', [0], { 'student.schedule': ['adaptive', 'never'] }, 5, 3);
    // the reload came at RetireOPD's student step 10, past the step riders join at: OPD throughout (nothing stored)
    // cannot ride along it and runs alone
    await storeRun(repo, queue, 0, 'lead', ['student', 10]);
    const reloaded: RunQueue = {
      ...queue,
      items: queue.items.map((item, i) => ({
        ...item,
        runId: i === 0 ? 'lead' : null,
        status: i === 0 ? 'running' : 'pending',
      })),
    };
    const done = await runQueue(reloaded, repo, lanes, () => undefined);
    // B started OPD throughout while A's leader still trained (the two starts come in either order)
    expect(log.slice(0, 2).sort()).toEqual(['A resumes adaptive', 'B starts never']);
    expect(log.slice(2).sort()).toEqual(['A ends adaptive', 'B ends never']);
    expect(done.state).toBe('done');
    expect(done.items.map((i) => i.status)).toEqual(['completed', 'completed']);
  }, 20_000);
});
