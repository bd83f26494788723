// One queue's execution: each item's stored run found again (adoptStoredRun), continued or started afresh with the
// later items that ride along it (populationOf), a rider that leaves its leader handed to another lane, and the queue
// stored after every change. runQueue.ts drives it over the queue's order in one lane or several (queueLanes.ts).
import type { RunSummary } from '../../core/experiment/summary';
import type { SweepRun } from '../../core/experiment/sweep';
import { trajectoryKeyOf } from '../../core/experiment/trajectoryKey';
import { checkpointName, checkpointRunOrder } from '../../core/runLog/checkpointName';
import type { QueueItem, QueueItemStatus, RunQueue } from './queueItem';
import type { HandOffs } from './queueLanes';
import type { RunRecord } from './runRecord';
import type { RunRepository } from './runRepository';
import type { NewRun, RunsStore } from './storedRunsStore';

class QueueRunError extends Error {
  override name = 'QueueRunError';
}

type Deferred<T> = ReturnType<typeof deferred<T>>;

export class QueueExecution {
  private q: RunQueue;
  /** items that ride along another item's run (label → its summary once its own run ended) */
  private readonly claims = new Map<string, Promise<RunSummary>>();

  constructor(
    queue: RunQueue,
    private readonly repo: RunRepository,
    /** called after every change, once the queue is stored */
    private readonly save: (q: RunQueue) => Promise<void> | void,
  ) {
    this.q = { ...queue, state: 'running', items: queue.items.map((i) => ({ ...i })) };
  }

  /** The queue as it stands. */
  get queue(): RunQueue {
    return this.q;
  }

  /** Whether a run of some item already took the item labelled `label` along. */
  claimed(label: string): boolean {
    return this.claims.has(label);
  }

  /** Store the queue with `state` (and tell `save`). */
  async store(state: RunQueue['state'] = this.q.state): Promise<void> {
    this.q = { ...this.q, state };
    await this.repo.putQueue(this.q);
    await this.save(this.q);
  }

  private async update(index: number, patch: Partial<QueueItem>): Promise<void> {
    this.q = { ...this.q, items: this.q.items.map((it, i) => (i === index ? { ...it, ...patch } : it)) };
    await this.store();
  }

  private newRun(i: number): NewRun {
    const q = this.q;
    const item = q.items[i]!;
    return {
      preset: q.preset,
      overrides: q.overrides,
      config: item.config,
      backendChoice: q.backendChoice,
      point: item.point,
      queueId: q.id,
      queueIndex: i,
      label: item.label,
    };
  }

  /**
   * Whether item `index` can take riders: nothing stored, or a run stopped before its student stage began (the
   * riders join when it begins, from step 0).
   */
  private async canLead(index: number): Promise<boolean> {
    const stored = await adoptStoredRun(this.q, index, this.repo);
    if (stored === null) return true;
    const studentStart = checkpointRunOrder(checkpointName('student', 0));
    return (
      stored.status !== 'failed' &&
      stored.status !== 'completed' &&
      stored.checkpoint !== null &&
      checkpointRunOrder(stored.checkpoint) >= 0 &&
      checkpointRunOrder(stored.checkpoint) <= studentStart
    );
  }

  /** The item's run alone: its stored run continued (completed, resumed) or started afresh, with `riders`. */
  private async execAlone(index: number, runs: RunsStore, riders: readonly number[] = []): Promise<RunSummary> {
    const label = this.q.items[index]!.label;
    const stored = await adoptStoredRun(this.q, index, this.repo);
    if (stored?.summary && stored.status === 'completed') {
      await this.update(index, { runId: stored.id, status: 'completed' });
      return stored.summary;
    }
    const why = () => runs.getState().error ?? 'unknown reason';
    let runId: string | null;
    if (stored && stored.checkpoint && stored.status !== 'failed') {
      runId = stored.id;
      await this.update(index, { runId, status: 'running' });
      for (const i of riders) await this.update(i, { runId: null, status: 'running' });
      // a resume that does not start says why, rather than leave its lane idle with an empty "failed"
      if (
        !(await runs.getState().resumeRun(
          runId,
          riders.map((i) => this.newRun(i)),
        ))
      )
        throw new QueueRunError(`${label}: the run did not resume (${why()})`);
    } else {
      // a run cut off before its first checkpoint (or failed) starts again from scratch: its partial record goes, so
      // the queue keeps one stored run per item
      if (stored) await this.repo.deleteRun(stored.id);
      await this.update(index, { runId: null, status: 'running' });
      for (const i of riders) await this.update(i, { runId: null, status: 'running' });
      runId = await runs.getState().startRun(
        this.newRun(index),
        riders.map((i) => this.newRun(i)),
      );
      if (runId === null) throw new QueueRunError(`${label}: the run did not start (${why()})`);
      await this.update(index, { runId });
    }
    await runs.getState().runEnded();
    let record = await this.repo.getRun(runId);
    if (record && needsLinesRetrained(record)) {
      // it finished but its step lines had a hole (a reload lost some): once more from the checkpoint before it
      if (!(await runs.getState().resumeRun(runId)))
        throw new QueueRunError(`${label}: the run did not resume (${why()})`);
      await runs.getState().runEnded();
      record = await this.repo.getRun(runId);
    }
    const summary = record?.summary ?? null;
    // the run record's own word, so the queue's list and the runs table agree
    const status: QueueItemStatus =
      record?.status === 'completed' || record?.status === 'stopped' || record?.status === 'interrupted'
        ? record.status
        : 'failed';
    await this.update(index, { status });
    if (!summary) throw new QueueRunError(`${label}: the run ended without a summary (${record?.error ?? 'failed'})`);
    return summary;
  }

  /**
   * An item's run and, when it starts afresh (or resumes before its student stage), the later pending items that
   * ride along it (populationOf). With `handOffs` (two lanes or more), a rider that leaves its leader — and an item
   * of the population that cannot ride (a run of its own is stored) — goes there, for the first free lane to
   * continue it alone; with one lane, each continues alone in this lane once the leader ended.
   * Resolves with the first interrupted summary, else the leader's.
   */
  async exec(run: SweepRun, runs: RunsStore, handOffs?: HandOffs<RunsStore>): Promise<RunSummary> {
    const claim = this.claims.get(run.label);
    if (claim) return claim;
    const index = this.q.items.findIndex((i) => i.label === run.label);
    // taken at once (no await before), so that no other lane takes them too
    const group = populationOf(this.q, index, (label) => this.claims.has(label));
    const ends = group.map(() => deferred<RunSummary>());
    group.forEach((i, k) => this.claims.set(this.q.items[i]!.label, ends[k]!.promise));
    for (const end of ends) end.promise.catch(() => undefined);
    /** the riders handed to another lane (they left the leader while it trained) */
    const handed = new Set<number>();
    const leader = await this.leadWithRiders(index, group, ends, handed, runs, handOffs);
    return this.continueRiders(group, ends, handed, leader, runs);
  }

  /** The leader's run with the riders that have nothing stored; on a failure every rider goes back to pending. */
  private async leadWithRiders(
    index: number,
    group: readonly number[],
    ends: readonly Deferred<RunSummary>[],
    handed: Set<number>,
    runs: RunsStore,
    handOffs: HandOffs<RunsStore> | undefined,
  ): Promise<RunSummary> {
    // the other lanes wait (rather than end) while a rider of this group may still be handed to them; each is
    // settled once it is handed off or it is clear that this lane continues it
    let unsettled = handOffs ? group.length : 0;
    handOffs?.expect(unsettled);
    const settle = (count: number) => {
      const n = Math.min(count, unsettled);
      unsettled -= n;
      handOffs?.settled(n);
    };
    let listening = () => {};
    try {
      // only runs with nothing stored ride (a stored one continues alone, right after)
      const fresh = async (i: number) => (await adoptStoredRun(this.q, i, this.repo)) === null;
      const riders: number[] = [];
      if (group.length > 0 && (await this.canLead(index))) for (const i of group) if (await fresh(i)) riders.push(i);
      // the others continue alone: with other lanes, in the first that is free — a reload that cut a population off
      // must not leave a lane idle while this one runs the leader, then each of them, one after another
      const alone = group.filter((i) => !riders.includes(i));
      if (handOffs)
        for (const i of alone) {
          handed.add(i);
          unsettled -= 1;
          handOffs.offer(this.continueElsewhere(i, ends[group.indexOf(i)]!));
        }
      else settle(alone.length);
      if (handOffs && riders.length > 0)
        listening = runs.getState().onRiderLeft((queueIndex) => {
          const k = group.indexOf(queueIndex ?? -1);
          if (k < 0 || !riders.includes(group[k]!) || handed.has(group[k]!)) return;
          handed.add(group[k]!);
          unsettled -= 1;
          handOffs.offer(this.continueElsewhere(group[k]!, ends[k]!));
        });
      return await this.execAlone(index, runs, riders);
    } catch (e) {
      for (const [k, i] of group.entries()) {
        if (handed.has(i)) continue;
        await this.update(i, { status: 'pending' });
        ends[k]!.reject(e);
      }
      throw e;
    } finally {
      listening();
      settle(unsettled);
    }
  }

  /**
   * After the leader: each rider not handed off continues alone in this lane — or, when the leader was stopped by
   * hand, is stored stopped with it (its own checkpoint) and the queue pauses.
   */
  private async continueRiders(
    group: readonly number[],
    ends: readonly Deferred<RunSummary>[],
    handed: ReadonlySet<number>,
    leader: RunSummary,
    runs: RunsStore,
  ): Promise<RunSummary> {
    let first: RunSummary | null = leader.status === 'interrupted' ? leader : null;
    for (const [k, i] of group.entries()) {
      if (handed.has(i)) continue;
      if (first) {
        await this.leaveResumable(i);
        ends[k]!.resolve(first);
        continue;
      }
      try {
        const s = await this.execAlone(i, runs);
        ends[k]!.resolve(s);
        if (s.status === 'interrupted') first = s;
      } catch (e) {
        ends[k]!.reject(e);
        for (const j of group.slice(k + 1)) if (!handed.has(j)) await this.update(j, { status: 'pending' });
        throw e;
      }
    }
    return first ?? leader;
  }

  /** Item `i` not continued now: stopped where its stored run has a checkpoint, else pending. */
  private async leaveResumable(i: number): Promise<void> {
    const rec = await adoptStoredRun(this.q, i, this.repo);
    await this.update(i, { runId: rec?.id ?? null, status: rec?.checkpoint ? 'stopped' : 'pending' });
  }

  /** A rider that left its leader, for the first free lane: its stored run continued alone, or left resumable. */
  private continueElsewhere(i: number, end: Deferred<RunSummary>) {
    return {
      run: async (lane: RunsStore) => {
        try {
          const s = await this.execAlone(i, lane);
          end.resolve(s);
          return s;
        } catch (e) {
          end.reject(e);
          throw e;
        }
      },
      cancel: async () => {
        await this.leaveResumable(i);
        end.reject(new QueueRunError(`${this.q.items[i]!.label}: not continued (the queue stopped)`));
      },
    };
  }
}

/** A run that reached its summary but was stored interrupted: its step lines had a hole (runRecorder.ts). */
const needsLinesRetrained = (r: RunRecord) => r.status === 'interrupted' && r.summary?.status === 'completed';

/**
 * The one stored run a queue item continues from, whatever moment a reload cut it off at. The queue is stored only
 * after `startRun` has written the run's record, so a reload in between leaves a record the queue does not name:
 * the item's runs are therefore looked up by queue and label too. Of several, a completed one wins, else the
 * resumable one (a checkpoint, not failed) updated last; the others are deleted, so each item keeps one stored run.
 */
async function adoptStoredRun(q: RunQueue, index: number, repo: RunRepository): Promise<RunRecord | null> {
  const item = q.items[index]!;
  const all = (await repo.listRuns()).filter(
    (r) => r.id === item.runId || (r.origin === 'tab' && r.queueId === q.id && r.label === item.label),
  );
  if (all.length === 0) return null;
  const rank = (r: RunRecord) =>
    r.status === 'completed' && r.summary ? 2 : r.checkpoint !== null && r.status !== 'failed' ? 1 : 0;
  const keep = [...all].sort((a, b) => rank(b) - rank(a) || b.updatedAt - a.updatedAt)[0]!;
  for (const r of all) if (r.id !== keep.id) await repo.deleteRun(r.id);
  return keep;
}

/**
 * The later items a run of item `index` takes along: pending, not taken by another run, with the same trajectory
 * key (core/experiment/trajectoryKey.ts) — they compute what it computes until their schedules differ — at most the
 * queue's population size less one. Those with nothing stored ride along its student stage (when it starts
 * afresh); each then continues alone in the same lane. None in a temperature-matched queue: a matched arm's
 * evaluation is set only once its reference arm ended.
 */
function populationOf(q: RunQueue, index: number, taken: (label: string) => boolean): number[] {
  const size = q.populationSize ?? 1;
  const item = q.items[index]!;
  if (size <= 1 || q.spec.matchTemperature || item.status === 'completed') return [];
  const key = trajectoryKeyOf(item.config);
  const group: number[] = [];
  for (let i = index + 1; i < q.items.length && group.length < size - 1; i++) {
    const other = q.items[i]!;
    if (other.status === 'pending' && !taken(other.label) && trajectoryKeyOf(other.config) === key) group.push(i);
  }
  return group;
}

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
