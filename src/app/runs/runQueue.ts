// The run queue: a preset (sweep presets included) × axes × seeds, expanded and ordered by the core's sweep code
// (expandSweep, runSweep: the same runs, labels, points and temperature matching as `npm run sweep`), each a stored
// run in a training worker: one after another, or — given two lanes (storedRuns.ts: where the machine has
// ≥ 2 cores) and no temperature matching, whose arms depend on each other — two at a time, in queue order, a rider
// that leaves its leader handed to the first free lane (queueLanes.ts). The queue itself is stored after every
// change, so a reload picks it up: finished runs are kept, an interrupted one resumes from its checkpoint, the rest
// start fresh.
import { assertFetchable, pageConfig } from '../pageConfig';
import type { Preset } from '../../core/experiment/preset';
import type { RunSummary } from '../../core/experiment/summary';
import { expandSweep, parseSweepSpec, runSweep, type SweepRun, type SweepSpec } from '../../core/experiment/sweep';
import { parseSeedList } from '../../core/experiment/seedList';
import { trajectoryKeyOf } from '../../core/experiment/trajectoryKey';
import type { BackendChoice } from '../worker/protocol';
import { newRunId, type RunRecord } from './runRecord';
import type { RunRepository, StoredQueue } from './runRepository';
import type { NewRun, RunsStore } from './storedRunsStore';
import { checkpointName, checkpointRunOrder } from '../../core/runLog/checkpointName';
import { HandOffs, inLanes } from './queueLanes';

/** 'interrupted': its run stopped without a summary but can continue from a checkpoint (a full browser storage) */
export type QueueItemStatus = 'pending' | 'running' | 'completed' | 'stopped' | 'interrupted' | 'failed';

export interface QueueItem extends SweepRun {
  runId: string | null;
  status: QueueItemStatus;
}

export interface RunQueue extends StoredQueue {
  id: string;
  createdAt: number;
  preset: string;
  overrides: string[];
  backendChoice: BackendChoice;
  spec: SweepSpec;
  items: QueueItem[];
  /** running: goes on after a reload; paused: a run was stopped by hand; done: every run has ended */
  state: 'running' | 'paused' | 'done';
  /**
   * the most runs one training worker trains at once, as a leader and the runs that ride along its student stage
   * (populationOf below); absent or 1: one run at a time
   */
  populationSize?: number;
}

/** The tab's default population: the lesson's three arms (RetireOPD, OPD throughout, GRPO) of one seed. */
export const DEFAULT_POPULATION_SIZE = 3;

/** Parse "0,1,2" (seeds) as `npm run sweep -- --seeds` does (core parseSeedList) — names the field on error. */
export function parseSeeds(text: string): number[] {
  const read = parseSeedList(text);
  if ('error' in read) throw new Error(`seeds: ${read.error}`);
  return read.value;
}

/** Parse axes, one per line: `student.schedule=adaptive,never` (values as JSON where they parse, as the CLI's --vary). */
export function parseAxes(text: string): Record<string, unknown[]> {
  const axes: Record<string, unknown[]> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`axes: "${line}": expected key=v1,v2,… e.g. student.schedule=adaptive,never`);
    axes[line.slice(0, eq).trim()] = line
      .slice(eq + 1)
      .split(',')
      .map((v) => {
        try {
          return JSON.parse(v.trim()) as unknown;
        } catch {
          return v.trim();
        }
      });
  }
  return axes;
}

/**
 * A queue as `npm run sweep -- --preset P [--seeds …] [--vary …] [--set …]` would run it: `axes` null keeps the
 * preset's own axes (and its temperature matching); seeds null keeps the preset's seeds (else 0,1,2).
 */
export function createQueue(
  preset: Preset,
  overrides: string[],
  backendChoice: BackendChoice,
  seeds: number[] | null,
  axes: Record<string, unknown[]> | null,
  now: number = Date.now(),
  populationSize: number = DEFAULT_POPULATION_SIZE,
): RunQueue {
  if (!Number.isSafeInteger(populationSize) || populationSize < 1)
    throw new Error(`population size: expected an integer ≥ 1, got ${populationSize}`);
  const base = pageConfig(preset.config, overrides);
  const ownAxes = axes === null;
  const match = ownAxes ? preset.sweep?.matchTemperature : undefined;
  const raw = {
    seeds: seeds ?? preset.sweep?.seeds ?? [0, 1, 2],
    axes: axes ?? preset.sweep?.axes ?? {},
    ...(match ? { matchTemperature: match } : {}),
  };
  const spec = parseSweepSpec(raw, base, 'queue');
  const items = expandSweep(base, spec).map((r) => ({ ...r, runId: null, status: 'pending' as const }));
  assertFetchable(
    items.map((item) => item.config),
    'queue',
  );
  return {
    id: `queue-${newRunId(now)}`,
    createdAt: now,
    preset: preset.name,
    overrides,
    backendChoice,
    spec,
    items,
    state: 'running',
    populationSize,
  };
}

export interface QueueProgress {
  done: number;
  total: number;
  /** 0…1 over the whole queue, counting the current run's fraction */
  fraction: number;
  /** seconds left (null until something finished) */
  etaSeconds: number | null;
}

/** Progress of a queue: ended runs count 1, the current run its fraction of steps; ETA from the elapsed time. */
export function queueProgress(queue: RunQueue, currentFraction: number, elapsedSeconds: number): QueueProgress {
  const total = queue.items.length;
  const done = queue.items.filter((i) => i.status !== 'pending' && i.status !== 'running').length;
  const running = queue.items.some((i) => i.status === 'running') ? Math.min(1, Math.max(0, currentFraction)) : 0;
  const fraction = total === 0 ? 1 : (done + running) / total;
  const etaSeconds =
    fraction > 0 && fraction < 1 ? (elapsedSeconds / fraction) * (1 - fraction) : fraction >= 1 ? 0 : null;
  return { done, total, fraction, etaSeconds };
}

class QueueRunError extends Error {
  override name = 'QueueRunError';
}

/**
 * Run (or continue) a queue to its end through the runs store(s) — `lanes`, each running one run at a time; `save`
 * is called after every change. Resolves with the final queue. A run stopped by hand pauses the queue (as Ctrl-C
 * ends `npm run sweep`): the other lane finishes the run it has and takes no more.
 */
export async function runQueue(
  queue: RunQueue,
  repo: RunRepository,
  lanes: RunsStore | readonly RunsStore[],
  save: (q: RunQueue) => Promise<void> | void,
): Promise<RunQueue> {
  const stores = Array.isArray(lanes) ? (lanes as readonly RunsStore[]) : [lanes as RunsStore];
  let q: RunQueue = { ...queue, state: 'running', items: queue.items.map((i) => ({ ...i })) };
  const update = async (index: number, patch: Partial<QueueItem>) => {
    q = { ...q, items: q.items.map((it, i) => (i === index ? { ...it, ...patch } : it)) };
    await repo.putQueue(q);
    await save(q);
  };
  await repo.putQueue(q);
  const indexOf = (label: string) => q.items.findIndex((i) => i.label === label);
  const newRun = (i: number): NewRun => ({
    preset: q.preset,
    overrides: q.overrides,
    config: q.items[i]!.config,
    backendChoice: q.backendChoice,
    point: q.items[i]!.point,
    queueId: q.id,
    queueIndex: i,
    label: q.items[i]!.label,
  });
  /** items that ride along another item's run (label → its summary once its own run ended) */
  const claims = new Map<string, Promise<RunSummary>>();
  /**
   * Whether item `index` can take riders: nothing stored, or a run stopped before its student stage began (the
   * riders join when it begins, from step 0).
   */
  const canLead = async (index: number): Promise<boolean> => {
    const stored = await adoptStoredRun(q, index, repo);
    if (stored === null) return true;
    const studentStart = checkpointRunOrder(checkpointName('student', 0));
    return (
      stored.status !== 'failed' &&
      stored.status !== 'completed' &&
      stored.checkpoint !== null &&
      checkpointRunOrder(stored.checkpoint) >= 0 &&
      checkpointRunOrder(stored.checkpoint) <= studentStart
    );
  };
  /** The item's run alone: its stored run continued (completed, resumed) or started afresh, with `riders`. */
  const execAlone = async (index: number, runs: RunsStore, riders: readonly number[] = []): Promise<RunSummary> => {
    const run = q.items[index]!;
    const stored = await adoptStoredRun(q, index, repo);
    if (stored?.summary && stored.status === 'completed') {
      await update(index, { runId: stored.id, status: 'completed' });
      return stored.summary;
    }
    let runId: string | null;
    if (stored && stored.checkpoint && stored.status !== 'failed') {
      runId = stored.id;
      await update(index, { runId, status: 'running' });
      for (const i of riders) await update(i, { runId: null, status: 'running' });
      // a resume that does not start says why, rather than leave its lane idle with an empty "failed"
      if (!(await runs.getState().resumeRun(runId, riders.map(newRun))))
        throw new QueueRunError(`${run.label}: the run did not resume (${runs.getState().error ?? 'unknown reason'})`);
    } else {
      // a run cut off before its first checkpoint (or failed) starts again from scratch: its partial record goes, so
      // the queue keeps one stored run per item
      if (stored) await repo.deleteRun(stored.id);
      await update(index, { runId: null, status: 'running' });
      for (const i of riders) await update(i, { runId: null, status: 'running' });
      runId = await runs.getState().startRun(newRun(index), riders.map(newRun));
      if (runId === null)
        throw new QueueRunError(`${run.label}: the run did not start (${runs.getState().error ?? 'unknown reason'})`);
      await update(index, { runId });
    }
    await runs.getState().runEnded();
    let record = await repo.getRun(runId);
    if (record && needsLinesRetrained(record)) {
      // it finished but its step lines had a hole (a reload lost some): once more from the checkpoint before it
      if (!(await runs.getState().resumeRun(runId)))
        throw new QueueRunError(`${run.label}: the run did not resume (${runs.getState().error ?? 'unknown reason'})`);
      await runs.getState().runEnded();
      record = await repo.getRun(runId);
    }
    const summary = record?.summary ?? null;
    // the run record's own word, so the queue's list and the runs table agree
    const status: QueueItemStatus =
      record?.status === 'completed' || record?.status === 'stopped' || record?.status === 'interrupted'
        ? record.status
        : 'failed';
    await update(index, { status });
    if (!summary)
      throw new QueueRunError(`${run.label}: the run ended without a summary (${record?.error ?? 'failed'})`);
    return summary;
  };
  /**
   * An item's run and, when it starts afresh (or resumes before its student stage), the later pending items that
   * ride along it (populationOf). With `handOffs` (two lanes or more), a rider that leaves its leader goes there, for
   * the first free lane to continue it alone; every other rider continues alone in this lane once the leader ended.
   * Resolves with the first interrupted summary, else the leader's.
   */
  const exec = async (run: SweepRun, runs: RunsStore, handOffs?: HandOffs<RunsStore>): Promise<RunSummary> => {
    const claim = claims.get(run.label);
    if (claim) return claim;
    const index = indexOf(run.label);
    // taken at once (no await before), so that no other lane takes them too
    const group = populationOf(q, index, (label) => claims.has(label));
    const ends = group.map(() => deferred<RunSummary>());
    group.forEach((i, k) => claims.set(q.items[i]!.label, ends[k]!.promise));
    for (const end of ends) end.promise.catch(() => undefined);
    // the other lanes wait (rather than end) while a rider of this group may still be handed to them; each is
    // settled once it is handed off or it is clear that this lane continues it
    let unsettled = handOffs ? group.length : 0;
    handOffs?.expect(unsettled);
    const settle = (count: number) => {
      const n = Math.min(count, unsettled);
      unsettled -= n;
      handOffs?.settled(n);
    };
    /** the riders handed to another lane (they left the leader while it trained) */
    const handed = new Set<number>();
    let listening = () => {};
    let first: RunSummary | null = null;
    let leader: RunSummary;
    try {
      // only runs with nothing stored ride (a stored one continues alone, right after)
      const fresh = async (i: number) => (await adoptStoredRun(q, i, repo)) === null;
      const riders: number[] = [];
      if (group.length > 0 && (await canLead(index))) for (const i of group) if (await fresh(i)) riders.push(i);
      settle(group.length - riders.length);
      if (handOffs && riders.length > 0)
        listening = runs.getState().onRiderLeft((queueIndex) => {
          const k = group.indexOf(queueIndex ?? -1);
          if (k < 0 || !riders.includes(group[k]!) || handed.has(group[k]!)) return;
          handed.add(group[k]!);
          unsettled -= 1;
          handOffs.offer(continueElsewhere(group[k]!, ends[k]!));
        });
      leader = await execAlone(index, runs, riders);
    } catch (e) {
      for (const [k, i] of group.entries()) {
        if (handed.has(i)) continue;
        await update(i, { status: 'pending' });
        ends[k]!.reject(e);
      }
      throw e;
    } finally {
      listening();
      settle(unsettled);
    }
    if (leader.status === 'interrupted') first = leader;
    for (const [k, i] of group.entries()) {
      if (handed.has(i)) continue;
      if (first) {
        // stopped by hand: each rider stopped with its leader (its own checkpoint), and the queue pauses
        const rec = await adoptStoredRun(q, i, repo);
        await update(i, { runId: rec?.id ?? null, status: rec?.checkpoint ? 'stopped' : 'pending' });
        ends[k]!.resolve(first);
        continue;
      }
      try {
        const s = await execAlone(i, runs);
        ends[k]!.resolve(s);
        if (s.status === 'interrupted') first = s;
      } catch (e) {
        ends[k]!.reject(e);
        for (const j of group.slice(k + 1)) if (!handed.has(j)) await update(j, { status: 'pending' });
        throw e;
      }
    }
    return first ?? leader;
  };
  /** A rider that left its leader, for the first free lane: its stored run continued alone, or left resumable. */
  const continueElsewhere = (i: number, end: ReturnType<typeof deferred<RunSummary>>) => ({
    run: async (lane: RunsStore) => {
      try {
        const s = await execAlone(i, lane);
        end.resolve(s);
        return s;
      } catch (e) {
        end.reject(e);
        throw e;
      }
    },
    cancel: async () => {
      const rec = await adoptStoredRun(q, i, repo);
      await update(i, { runId: rec?.id ?? null, status: rec?.checkpoint ? 'stopped' : 'pending' });
      end.reject(new QueueRunError(`${q.items[i]!.label}: not continued (the queue stopped)`));
    },
  });
  const stop = (s: RunSummary) => s.status === 'interrupted';
  try {
    if (stores.length > 1 && !q.spec.matchTemperature) {
      const handOffs = new HandOffs<RunsStore>();
      const taken = (run: SweepRun) => claims.has(run.label);
      await inLanes(q.items, stores, (run, lane) => exec(run, lane, handOffs), stop, taken, handOffs);
    } else await runSweep(q.items, q.spec, (run) => exec(run, stores[0]!), { stop });
    const stopped = q.items.some((i) => i.status === 'stopped' || i.status === 'pending');
    q = { ...q, state: stopped ? 'paused' : 'done' };
  } catch (e) {
    q = { ...q, state: 'paused' };
    await repo.putQueue(q);
    await save(q);
    throw e;
  }
  await repo.putQueue(q);
  await save(q);
  return q;
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

/**
 * How a fresh queue packs (every item pending, nothing stored): per population, its leader's index and its riders'.
 * Shown before the queue starts; the run itself packs the same way (populationOf), skipping items that already have a
 * stored run. Linear in the items: each trajectory key is computed once, and each key's pending items are taken in
 * order from a cursor (populationOf's forward scan per item would be quadratic: minutes for a few thousand items).
 */
export function populationPlan(q: RunQueue): { leader: number; riders: number[] }[] {
  const size = q.populationSize ?? 1;
  if (size <= 1 || q.spec.matchTemperature) return q.items.map((_, leader) => ({ leader, riders: [] }));
  const keys = q.items.map((item) => trajectoryKeyOf(item.config));
  // per key: its pending items in queue order, and how many of them are already leaders or riders
  const pending = new Map<string, { items: number[]; next: number }>();
  q.items.forEach((item, i) => {
    if (item.status !== 'pending') return;
    const bucket = pending.get(keys[i]!) ?? pending.set(keys[i]!, { items: [], next: 0 }).get(keys[i]!)!;
    bucket.items.push(i);
  });
  const taken = new Set<number>();
  const plan: { leader: number; riders: number[] }[] = [];
  q.items.forEach((item, index) => {
    if (taken.has(index)) return;
    const bucket = pending.get(keys[index]!);
    const riders: number[] = [];
    if (bucket && item.status !== 'completed') {
      while (bucket.next < bucket.items.length && bucket.items[bucket.next]! <= index) bucket.next++;
      while (riders.length < size - 1 && bucket.next < bucket.items.length) riders.push(bucket.items[bucket.next++]!);
    }
    for (const i of riders) taken.add(i);
    plan.push({ leader: index, riders });
  });
  return plan;
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
