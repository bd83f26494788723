// The run queue: a preset (sweep presets included) × axes × seeds, expanded and ordered by the core's sweep code
// (expandSweep, runSweep: the same runs, labels, points and temperature matching as `npm run sweep`), each a stored
// run in a training worker: one after another, or — given two lanes (storedRuns.ts: where the machine has
// ≥ 4 cores) and no temperature matching, whose arms depend on each other — two at a time, in queue order. The queue itself is stored after every change, so a reload
// picks it up: finished runs are kept, an interrupted one resumes from its checkpoint, the rest start fresh.
import { applyOverrides, ConfigError } from '../../core/experiment/config';
import { configFileReferenceErrors } from '../../core/experiment/fileReference';
import type { Preset } from '../../core/experiment/preset';
import type { RunSummary } from '../../core/experiment/summary';
import { expandSweep, parseSweepSpec, runSweep, type SweepRun, type SweepSpec } from '../../core/experiment/sweep';
import type { BackendChoice } from '../worker/protocol';
import { newRunId, type RunRecord } from './runRecord';
import type { RunRepository, StoredQueue } from './runRepository';
import type { RunsStore } from './storedRunsStore';

export type QueueItemStatus = 'pending' | 'running' | 'completed' | 'stopped' | 'failed';

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
}

/** Parse "0,1,2" (seeds) — names the field on error. */
export function parseSeeds(text: string): number[] {
  const parts = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const seeds = parts.map(Number);
  if (parts.length === 0 || !seeds.every((n) => Number.isSafeInteger(n) && n >= 0))
    throw new Error(`seeds: expected comma-separated integers ≥ 0, e.g. 0,1,2; got "${text}"`);
  return seeds;
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
): RunQueue {
  const base = applyOverrides(preset.config, overrides);
  const ownAxes = axes === null;
  const match = ownAxes ? preset.sweep?.matchTemperature : undefined;
  const raw = {
    seeds: seeds ?? preset.sweep?.seeds ?? [0, 1, 2],
    axes: axes ?? preset.sweep?.axes ?? {},
    ...(match ? { matchTemperature: match } : {}),
  };
  const spec = parseSweepSpec(raw, base, 'queue');
  const items = expandSweep(base, spec).map((r) => ({ ...r, runId: null, status: 'pending' as const }));
  const offOrigin = [...new Set(items.flatMap((item) => configFileReferenceErrors(item.config, 'app')))];
  if (offOrigin.length > 0) throw new ConfigError(offOrigin, 'queue');
  return {
    id: `queue-${newRunId(now)}`,
    createdAt: now,
    preset: preset.name,
    overrides,
    backendChoice,
    spec,
    items,
    state: 'running',
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
  const exec = async (run: SweepRun, runs: RunsStore): Promise<RunSummary> => {
    const index = indexOf(run.label);
    const stored = await adoptStoredRun(q, index, repo);
    if (stored?.summary && stored.status === 'completed') {
      await update(index, { runId: stored.id, status: 'completed' });
      return stored.summary;
    }
    let runId: string | null;
    if (stored && stored.checkpoint && stored.status !== 'failed') {
      runId = stored.id;
      await update(index, { runId, status: 'running' });
      await runs.getState().resumeRun(runId);
    } else {
      // a run cut off before its first checkpoint (or failed) starts again from scratch: its partial record goes, so
      // the queue keeps one stored run per item
      if (stored) await repo.deleteRun(stored.id);
      await update(index, { runId: null, status: 'running' });
      runId = await runs.getState().startRun({
        preset: q.preset,
        overrides: q.overrides,
        config: run.config,
        backendChoice: q.backendChoice,
        point: run.point,
        queueId: q.id,
        queueIndex: index,
        label: run.label,
      });
      if (runId === null)
        throw new QueueRunError(`${run.label}: the run did not start (${runs.getState().error ?? 'unknown reason'})`);
      await update(index, { runId });
    }
    await runs.getState().runEnded();
    const record = await repo.getRun(runId);
    const summary = record?.summary ?? null;
    const status: QueueItemStatus =
      record?.status === 'completed' ? 'completed' : record?.status === 'stopped' ? 'stopped' : 'failed';
    await update(index, { status });
    if (!summary)
      throw new QueueRunError(`${run.label}: the run ended without a summary (${record?.error ?? 'failed'})`);
    return summary;
  };
  const stop = (s: RunSummary) => s.status === 'interrupted';
  try {
    if (stores.length > 1 && !q.spec.matchTemperature) await inLanes(q.items, stores, exec, stop);
    else await runSweep(q.items, q.spec, (run) => exec(run, stores[0]!), { stop });
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
 * Every item once, in queue order, each lane taking the next item as soon as its run ends; after a `stop` summary no
 * lane takes another. The first failure ends the queue once the other lane's run is over.
 */
async function inLanes<L>(
  items: readonly SweepRun[],
  lanes: readonly L[],
  exec: (run: SweepRun, lane: L) => Promise<RunSummary>,
  stop: (s: RunSummary) => boolean,
): Promise<void> {
  let next = 0;
  let stopped = false;
  const results = await Promise.allSettled(
    lanes.map(async (lane) => {
      while (!stopped && next < items.length) {
        try {
          if (stop(await exec(items[next++]!, lane))) stopped = true;
        } catch (e) {
          stopped = true;
          throw e;
        }
      }
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
