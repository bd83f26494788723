// A sweep's lanes: `npm run sweep -- --jobs N` splits the sweep's runs into groups that share no work with each other
// and sweeps each group in a Node process of its own (the same command with --part), at most N at once. On wasm
// a Node process trains on one core, and a member axis would not make a step cheaper there (K members' rows cost
// about K steps: bench/memberBatching.ts), so the other cores are what makes a sweep faster.
// Grouping keeps every sharing the sweep does alone that still leaves N groups: runs with one config prefix (the
// demonstrations, SFT and teacher stages) stay together when there are at least N such prefixes; otherwise groups
// are trajectory keys (a leader and the runs that can ride along it), and each group trains its prefix itself (the
// same bits: a fork equals the run made alone). Each run folder is exactly what the sweep makes in one process.
// Node only.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { UserError, withFsErrors } from '../src/core/errors';
import type { RunSummary } from '../src/core/experiment/summary';
import { prefixKeyOf } from '../src/core/experiment/configPrefix';
import type { SweepRun } from '../src/core/experiment/sweep';
import { teacherHorizonRank, trajectoryKeyOf } from '../src/core/experiment/trajectoryKey';
import type { CliIo } from './cliMain';
import { onInterrupt, SIGNAL_EXIT_CODE } from './interrupt';
import { ROOT } from './presetFiles';
import { readCurve, slug, type DoneRun } from './sweepOutcome';

/** How the runs were grouped: by config prefix, by trajectory key, or by seed (temperature-matched sweeps). */
export type LaneGrouping = 'prefix' | 'trajectory' | 'seed';

/** --jobs: an integer ≥ 1 or `auto` (this machine's available parallelism); undefined → `fallback`. */
export function parseJobs(raw: string | undefined, fallback: number | 'auto'): number {
  const value = raw ?? String(fallback);
  if (value.trim() === 'auto') return Math.max(1, availableParallelism());
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new UserError(`--jobs: expected an integer ≥ 1 or "auto", got "${value.slice(0, 40)}"`);
  return n;
}

/**
 * The sweep's runs (their indices) in groups that share no work, largest group first (ties in sweep order), so that
 * the longest lane starts first; within a group, the order its lane runs them in. A temperature-matched sweep keeps
 * each seed's runs together, in sweep order (the matched arm reads its reference run's entropy).
 */
export function planLanes(
  runs: readonly SweepRun[],
  jobs: number,
  opts: { matchTemperature: boolean },
): { groups: number[][]; by: LaneGrouping } {
  const groupBy = (keyOf: (run: SweepRun) => string): number[][] => {
    const groups = new Map<string, number[]>();
    runs.forEach((run, i) => {
      const key = keyOf(run);
      groups.set(key, [...(groups.get(key) ?? []), i]);
    });
    return [...groups.values()];
  };
  const largestFirst = (groups: number[][]): number[][] =>
    groups
      .map((g, i) => ({ g, i }))
      .sort((a, b) => b.g.length - a.g.length || a.i - b.i)
      .map(({ g }) => g);
  // within a group, the run that keeps the teacher longest goes first and leads its trajectory key: the runs that
  // leave it then hand the cheaper steps without a teacher forward to the next free lane (ties in sweep order)
  const leaderFirst = (groups: number[][]): number[][] =>
    groups.map((g) =>
      [...g].sort((a, b) => teacherHorizonRank(runs[b]!.config) - teacherHorizonRank(runs[a]!.config) || a - b),
    );
  if (opts.matchTemperature) return { groups: largestFirst(groupBy((r) => String(r.seed))), by: 'seed' };
  const byPrefix = groupBy((r) => prefixKeyOf(r.config));
  if (byPrefix.length >= jobs) return { groups: leaderFirst(largestFirst(byPrefix)), by: 'prefix' };
  return { groups: leaderFirst(largestFirst(groupBy((r) => trajectoryKeyOf(r.config)))), by: 'trajectory' };
}

/** --part: the comma-separated run indices a lane sweeps, each in 0 … total − 1, none twice. */
export function parsePart(raw: string, total: number): number[] {
  const parts = raw.split(',').map((s) => s.trim());
  const indices = parts.map((s) => Number(s));
  if (parts.some((s, k) => !/^\d+$/.test(s) || indices[k]! >= total) || new Set(indices).size !== indices.length)
    throw new UserError(`--part: expected distinct run indices in 0 … ${total - 1}, got "${raw.slice(0, 60)}"`);
  return indices;
}

/**
 * A lane's work: runs of the sweep (indices) to sweep, or one run to continue from where it left its leader, with
 * the student steps it has left.
 */
export interface LaneTask {
  part: readonly number[];
  continuation: boolean;
  stepsLeft?: number;
}

/**
 * Run `tasks` through `start`, at most `jobs` at once, each lane taking the next task when its last one ends. A
 * running task may `enqueue` more (a follower that left its leader, to continue in whichever lane is free first).
 * Tasks not yet started go first, since each may enqueue more once it runs: starting them early exposes that work
 * while every lane is still busy, instead of leaving one lane idle at the end while the last group trains the steps
 * its follower shares. Enqueued tasks then go largest `size` first (ties in the order enqueued), which packs the tail
 * of known lengths. No task starts once `stopped()` is true. Resolves to each started task's exit code, in the order
 * they ended.
 */
export async function runLanes<T>(
  tasks: readonly T[],
  jobs: number,
  start: (task: T, lane: number, enqueue: (task: T) => void) => Promise<number>,
  stopped: () => boolean = () => false,
  size: (task: T) => number = () => 0,
): Promise<{ task: T; code: number }[]> {
  const queue = [...tasks];
  const enqueued: T[] = [];
  const ended: { task: T; code: number }[] = [];
  const waiting: (() => void)[] = [];
  const wake = (): void => {
    for (const w of waiting.splice(0)) w();
  };
  const enqueue = (task: T): void => {
    enqueued.push(task);
    wake();
  };
  const next = (): T | undefined => {
    if (queue.length > 0) return queue.shift();
    let best = -1;
    enqueued.forEach((task, k) => {
      if (best < 0 || size(task) > size(enqueued[best]!)) best = k;
    });
    return best < 0 ? undefined : enqueued.splice(best, 1)[0];
  };
  let active = 0;
  const lane = async (k: number): Promise<void> => {
    for (;;) {
      if (stopped()) return;
      const task = next();
      if (task === undefined) {
        // nothing to take: done once no running task can enqueue more
        if (active === 0) return;
        await new Promise<void>((r) => waiting.push(r));
        continue;
      }
      active++;
      try {
        ended.push({ task, code: await start(task, k, enqueue) });
      } finally {
        active--;
        wake();
      }
    }
  };
  await Promise.all(Array.from({ length: jobs }, (_, k) => lane(k)));
  return ended;
}

/**
 * What a lane tells its sweep: run `index` left its leader after student step `step`, its state is in its folder to
 * be continued.
 */
export interface LaneMessage {
  type: 'detached';
  index: number;
  step: number;
}

const isLaneMessage = (m: unknown): m is LaneMessage =>
  typeof m === 'object' &&
  m !== null &&
  (m as LaneMessage).type === 'detached' &&
  Number.isSafeInteger((m as LaneMessage).index) &&
  Number.isSafeInteger((m as LaneMessage).step);

/**
 * Start one lane: `npm run sweep` (node --import tsx cli/sweep.ts) with `argv`, in the repository root, its stderr
 * (the runs' progress lines) handed to `log` line by line and its messages to `onMessage`; `children` holds it
 * while it runs, so that a stop reaches it. Resolves to its exit code (a signal's 128 + n).
 */
export function startLane(
  argv: readonly string[],
  children: Set<ChildProcess>,
  log: (text: string) => void,
  onMessage: (message: LaneMessage) => void = () => undefined,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'cli', 'sweep.ts'), ...argv], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    children.add(child);
    let pending = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      const text = pending + chunk;
      const end = text.lastIndexOf('\n') + 1;
      pending = text.slice(end);
      if (end > 0) log(text.slice(0, end));
    });
    child.on('message', (m) => {
      if (isLaneMessage(m)) onMessage(m);
    });
    child.on('error', (e) => {
      children.delete(child);
      reject(e);
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      if (pending !== '') log(`${pending}\n`);
      resolve(code ?? (signal === 'SIGTERM' ? 143 : 130));
    });
  });
}

/** Tell the sweep that started this lane (if one did) that run `index` left its leader; resolves once sent. */
export function tellSweep(message: LaneMessage): Promise<void> {
  const send = process.send?.bind(process);
  if (!send) return Promise.resolve();
  return new Promise((resolve, reject) => void send(message, undefined, {}, (e) => (e ? reject(e) : resolve())));
}

/**
 * What the lanes left in the sweep folder `out`: each run whose folder has a summary.json, in sweep order, as the
 * outcome reads it; `missing` counts the runs without one (a lane failed or was stopped before them).
 */
export function readLaneResults(out: string, runs: readonly SweepRun[]): { done: DoneRun[]; missing: number } {
  const done: DoneRun[] = [];
  let missing = 0;
  for (const run of runs) {
    const dir = join(out, slug(run.label));
    const path = join(dir, 'summary.json');
    if (!existsSync(path)) {
      missing++;
      continue;
    }
    const summary = JSON.parse(
      withFsErrors(path, "reading a lane's run", () => readFileSync(path, 'utf8')),
    ) as RunSummary;
    done.push({
      point: run.point,
      summary,
      label: run.label,
      curve: readCurve(join(dir, 'metrics.jsonl')),
      envKey: JSON.stringify(run.config.env),
    });
  }
  return { done, missing };
}

/** The flags a sweep sets for each of its lanes itself. */
const LANE_FLAGS = new Set(['jobs', 'out', 'part', 'no-progress', 'hand-off', 'continue']);

/**
 * A lane's command line: the sweep's own flags as parsed (so every lane plans the same runs), in the absolute sweep
 * folder, without --jobs, without progress bars (lanes would draw over each other), and with the lane's --part.
 */
export function laneArgv(values: Readonly<Record<string, unknown>>, lane: { out: string; task: LaneTask }): string[] {
  const argv: string[] = [];
  for (const [flag, value] of Object.entries(values)) {
    if (LANE_FLAGS.has(flag) || value === undefined) continue;
    if (flag === 'share-from') argv.push(`--${flag}`, resolve(value as string));
    else if (value === true) argv.push(`--${flag}`);
    else if (Array.isArray(value)) for (const v of value as unknown[]) argv.push(`--${flag}`, String(v));
    else if (value !== false) argv.push(`--${flag}`, String(value));
  }
  return [
    ...argv,
    ...['--out', lane.out, '--part', lane.task.part.join(','), '--no-progress', '--hand-off'],
    ...(lane.task.continuation ? ['--continue'] : []),
  ];
}

/**
 * The sweep's runs in lanes, at most `jobs` processes at once: each group in a lane, and each follower that leaves
 * its leader continued in a lane that comes free once every group has started, the most steps left first (its
 * leader's lane goes on with the leader). A first Ctrl-C or
 * SIGTERM is passed to the running lanes (each stops its run at a step boundary with a checkpoint) and starts no
 * further one; a second quits. Returns the runs the lanes finished, in sweep order, and whether every run completed.
 */
export async function sweepInLanes(
  runs: readonly SweepRun[],
  groups: readonly number[][],
  jobs: number,
  argvOf: (task: LaneTask) => string[],
  out: string,
  io: CliIo,
): Promise<{ done: DoneRun[]; ok: boolean }> {
  const children = new Set<ChildProcess>();
  let stopped = false;
  const removeHandler = onInterrupt(
    (signal) => {
      stopped = true;
      io.stderr(`\n${signal}: stopping the running lanes at a step boundary (again to quit at once)\n`);
      for (const c of children) c.kill(signal);
    },
    (signal) => {
      for (const c of children) c.kill('SIGKILL');
      process.exit(SIGNAL_EXIT_CODE[signal]);
    },
  );
  let ended: { code: number }[];
  try {
    ended = await runLanes<LaneTask>(
      groups.map((part) => ({ part, continuation: false })),
      jobs,
      (task, _lane, enqueue) =>
        startLane(
          argvOf(task),
          children,
          (t) => io.stderr(t),
          (m) =>
            enqueue({
              part: [m.index],
              continuation: true,
              stepsLeft: Math.max(0, (runs[m.index]?.config.student.steps ?? 0) - m.step),
            }),
        ),
      () => stopped,
      (task) => task.stepsLeft ?? 0,
    );
  } finally {
    removeHandler();
  }
  const { done, missing } = readLaneResults(out, runs);
  if (missing > 0)
    io.stderr(`warning: ${missing} of ${runs.length} runs left no summary.json (a lane failed or was stopped)\n`);
  const ok = missing === 0 && ended.every((e) => e.code === 0) && done.every((d) => d.summary.status === 'completed');
  return { done, ok };
}
