// The run queue: a preset (sweep presets included) × axes × seeds, expanded and ordered by the core's sweep code
// (expandSweep, runSweep: the same runs, labels, points and temperature matching as `npm run sweep`), each a stored
// run in a training worker: one after another, or — given two lanes (storedRuns.ts: where the machine has
// ≥ 2 cores) and no temperature matching, whose arms depend on each other — two at a time, in queue order, a rider
// that leaves its leader handed to the first free lane (queueLanes.ts). The queue itself is stored after every
// change, so a reload picks it up: finished runs are kept, an interrupted one resumes from its checkpoint, the rest
// start fresh. The queue's items: queueItem.ts; one item's run and its riders: queueExecution.ts.
import { assertFetchable, pageConfig } from '../pageConfig';
import type { Preset } from '../../core/experiment/preset';
import type { RunSummary } from '../../core/experiment/summary';
import { expandSweep, parseSweepSpec, runSweep, type SweepRun } from '../../core/experiment/sweep';
import { parseSeedList } from '../../core/experiment/seedList';
import { trajectoryKeyOf } from '../../core/experiment/trajectoryKey';
import type { BackendChoice } from '../worker/protocol';
import { newRunId } from './runRecord';
import type { RunRepository } from './runRepository';
import type { RunsStore } from './storedRunsStore';
import { HandOffs, inLanes } from './queueLanes';
import { QueueExecution } from './queueExecution';
import type { RunQueue } from './queueItem';

export type { QueueItem, QueueItemStatus, RunQueue } from './queueItem';

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
  const x = new QueueExecution(queue, repo, save);
  await repo.putQueue(x.queue);
  const { items, spec } = x.queue;
  const stop = (s: RunSummary) => s.status === 'interrupted';
  try {
    if (stores.length > 1 && !spec.matchTemperature) {
      const handOffs = new HandOffs<RunsStore>();
      const taken = (run: SweepRun) => x.claimed(run.label);
      await inLanes(items, stores, (run, lane) => x.exec(run, lane, handOffs), stop, taken, handOffs);
    } else await runSweep(items, spec, (run) => x.exec(run, stores[0]!), { stop });
  } catch (e) {
    await x.store('paused');
    throw e;
  }
  const stopped = x.queue.items.some((i) => i.status === 'stopped' || i.status === 'pending');
  await x.store(stopped ? 'paused' : 'done');
  return x.queue;
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
