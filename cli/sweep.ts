// `npm run sweep -- --preset NAME [--seeds 0,1,2] [--vary key=v1,v2 …] [--set key=value …] [--backend B]
// [--out DIR] [--no-share | --share-from DIR] [--no-progress]`, or `npm run sweep -- --presets A,B,C …` (each preset one point, e.g. the
// retire-/opd-/grpo-/control-shell story): every point for every seed, one run folder each, then comparison.md /
// comparison.json (final test success mean ± 95 % interval over seeds, steps to reach 0.9·S_T on validation,
// trigger steps, teacher forwards saved, wall time) and validation-<env>.svg (validation success vs student step,
// mean ± 95 % band per point, retirement markers). Groups of runs that share no work run in parallel processes, one
// per core (--jobs, cli/sweepLanes.ts); within a group, runs are sequential (one process, one backend). A preset with
// sweep.matchTemperature (actobs-vs-actionsft) runs its reference arm first per seed and evaluates the other arm at
// the temperature matching the reference's argument-token entropy (an extra column of the table). Runs with the same
// config prefix (core/experiment/configPrefix.ts: everything the demonstrations, SFT and teacher stages read) share
// it: the first of them trains it, the others fork from its checkpoint before the student stage (cli/prefixFork.ts).
// Later runs with the same trajectory key (core/experiment/trajectoryKey.ts: equal but for the schedule, its gate
// and the final evaluation) also share the student stage: they ride along the first one's as followers
// (src/engine/trainer/followers.ts) until their schedule first plans a step differently, then continue alone from
// there (OPD throughout leaves RetireOPD at its trigger). --no-share runs every run alone.
// Exit codes: 0 all runs completed; 1 some run failed or was interrupted; 2 user error.
import { basename, join, resolve } from 'node:path';
import { freemem } from 'node:os';
import { populationRefusal, type MemoryBudget } from '../src/engine/trainer/populationMemory';
import { CheckpointError, RunFolderError, UserError } from '../src/core/errors';
import { tuningSeedWarning } from '../src/core/experiment/seedProtocol';
import { parseSeedList } from '../src/core/experiment/seedList';
import { applyOverrides } from '../src/core/experiment/config';
import { NODE_BACKEND_NAMES } from '../src/core/methodVocabulary';
import { parseFlags, refuseBlankPaths } from './cliArgs';
import { expandSweep, parseSweepSpec, runSweep, type SweepRun, type SweepSpec } from '../src/core/experiment/sweep';
import type { CurvePoint } from '../src/core/experiment/comparison';
import { about, readCurve, report, slug, writeOutcome, type DoneRun } from './sweepOutcome';
import {
  installInterrupt,
  loadShippedTeacher,
  oneLine,
  prepareResume,
  runExperiment,
  startBackend,
} from './experimentRunner';
import { availablePresets, readPreset, ROOT } from './presetFiles';
import { isEntryPoint, processIo, runCliMain, runCommand, type CliIo } from './cliMain';
import { InterruptLatch } from './interrupt';
import { laneArgv, parseJobs, parsePart, planLanes, sweepInLanes, tellSweep, type LaneTask } from './sweepLanes';
import { RunFolder } from './runFolder';
import { forkRunFolder, leadersUnder } from './prefixFork';
import { prefixKeyOf } from '../src/core/experiment/configPrefix';
import { existsSync, rmSync } from 'node:fs';
import {
  largestPopulation,
  openRides,
  prepareSweepFolder,
  rideKey,
  type Ride,
  type RideCandidate,
  type RideRegistry,
  writeDetachedState,
} from './sweepRides';

/** More runs than this in one sweep is almost surely a typo in --seeds or --vary. */
const MAX_RUNS = 1000;

const USAGE = `usage: npm run sweep -- --preset NAME [options]

  --preset NAME        base preset (sweep presets bring their own axes and seeds): ${availablePresets().join(', ')}
  --presets A,B,…      instead of --preset: each preset is one point of the sweep (same seeds, no axes)
  --report D1,D2,…     no runs: one table and figure per environment over sweep folders (finished runs of
                       unfinished sweeps included; needs --out)
  --seeds 0,1,2        seeds (default: the preset's sweep seeds, else 0,1,2)
  --vary key=v1,v2     an axis (dotted config key, comma-separated values; repeatable; replaces the preset's axes)
  --set key=value      override the base config (repeatable)
  --backend B          ${NODE_BACKEND_NAMES.join(' | ')}
  --out DIR            sweep folder (default runs/sweep-<preset>-<time>)
  --no-share           train every run alone (default: runs whose configs agree on every key the demonstrations,
                       SFT and teacher stages read train them once and fork before the student stage, and runs
                       that differ only in schedule, gate or evaluation also share the student stage until their
                       schedules first plan a step differently)
  --population-size N  at most N runs train as one population: a leader and N−1 followers riding along its
                       student stage (default: no cap; 1 runs every student stage on its own)
  --jobs N|auto        sweep groups of runs that share no work in N Node processes at once (default from the
                       command line: auto, this machine's core count; 1 runs everything in this process)
  --share-from DIR     also fork from the completed runs already in DIR (a sweep folder, or a folder of sweep
                       folders such as npm run protocol's)
  --no-progress        no progress bars`;

function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** --population-size: an integer ≥ 1 (default: no cap). */
function parsePopulationSize(raw: string | undefined): number {
  if (raw === undefined) return Infinity;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new UserError(`--population-size: expected an integer ≥ 1, got "${raw.slice(0, 40)}"`);
  return n;
}

const FLAGS = {
  preset: { type: 'string' },
  presets: { type: 'string' },
  seeds: { type: 'string' },
  vary: { type: 'string', multiple: true },
  set: { type: 'string', multiple: true },
  backend: { type: 'string' },
  out: { type: 'string' },
  report: { type: 'string' },
  'no-progress': { type: 'boolean' },
  'no-share': { type: 'boolean' },
  'share-from': { type: 'string' },
  'population-size': { type: 'string' },
  jobs: { type: 'string' },
  // set by a sweep for its lanes (sweepLanes.ts), not by users: the runs to sweep, followers handed on, continue
  part: { type: 'string' },
  'hand-off': { type: 'boolean' },
  continue: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type SweepFlags = ReturnType<typeof parseFlags<typeof FLAGS>>['values'];

/** What a sweep's flags plan, before anything is run or written: its presets, seeds, axes and runs. */
function planRuns(values: SweepFlags, onSeeds: (seeds: number[]) => void = () => undefined) {
  if (!values.preset && !values.presets)
    throw new UserError(`--preset or --presets is required (available: ${availablePresets().join(', ')})`);
  if (values.preset && values.presets) throw new UserError('give --preset or --presets, not both');
  const names = values.presets ? values.presets.split(',').map((n) => n.trim()) : [values.preset as string];
  const presets = names.map((n) => readPreset(n));
  const preset = presets[0]!;
  const sets = [...(values.set ?? [])];
  if (values.backend !== undefined) sets.push(`runtime.backend=${values.backend}`);
  const base = applyOverrides(preset.config, sets);
  let seeds = values.presets ? [0, 1, 2] : (preset.sweep?.seeds ?? [0, 1, 2]);
  if (values.seeds !== undefined) {
    const read = parseSeedList(values.seeds);
    if ('error' in read) throw new UserError(`--seeds: ${read.error}`);
    seeds = read.value;
  }
  onSeeds(seeds);
  let spec: SweepSpec;
  let runs: SweepRun[];
  let axes: Record<string, unknown[]> = preset.sweep?.axes ?? {};
  if (values.presets) {
    if (values.vary?.length) throw new UserError('--vary cannot be combined with --presets');
    axes = { preset: names };
    spec = { seeds, axes: {} };
    runs = presets.flatMap((p) =>
      expandSweep(applyOverrides(p.config, sets), spec).map((r) => ({
        ...r,
        label: `preset=${p.name} ${r.label}`,
        point: { preset: p.name },
      })),
    );
  } else {
    if (values.vary?.length) {
      axes = {};
      for (const v of values.vary) {
        const eq = v.indexOf('=');
        if (eq <= 0)
          throw new UserError(`--vary "${v.slice(0, 60)}": expected key=v1,v2,… e.g. student.schedule=adaptive,never`);
        const key = v.slice(0, eq);
        if (key.split('.').some((p) => p === '__proto__' || p === 'constructor' || p === 'prototype'))
          throw new UserError(`--vary ${key.slice(0, 60)}: a JavaScript prototype name is never a config key`);
        if (Object.hasOwn(axes, key)) throw new UserError(`--vary ${key.slice(0, 60)}: given twice (one axis per key)`);
        axes[key] = v
          .slice(eq + 1)
          .split(',')
          .map(parseValue);
      }
    }
    // the preset's temperature matching applies while its axes do (not with --vary axes of one's own)
    const match = values.vary?.length ? undefined : preset.sweep?.matchTemperature;
    spec = parseSweepSpec(match ? { seeds, axes, matchTemperature: match } : { seeds, axes }, base, 'sweep');
    runs = expandSweep(base, spec);
  }
  if (runs.length > MAX_RUNS)
    throw new UserError(
      `--seeds × --vary: ${runs.length} runs, at most ${MAX_RUNS} in one sweep (split it into several)`,
    );
  const slugs = runs.map((r) => slug(r.label));
  const twice = slugs.find((x, i) => slugs.indexOf(x) !== i);
  if (twice !== undefined)
    throw new UserError(`--vary: two points of the sweep have the same folder name "${twice}" (a value given twice?)`);
  return { names, presets, sets, seeds, spec, runs, axes };
}

/**
 * The runs `npm run sweep -- ARGV` would make and their run folders (ARGV has --out), without running or writing
 * anything: the protocol's later arms, offered as riders to the arm it runs first.
 */
export function sweepRunsOf(argv: string[]): RideCandidate[] {
  const { values } = parseFlags(argv, FLAGS);
  if (values.out === undefined) throw new UserError('sweepRunsOf: the sweep has no --out');
  const out = values.out;
  return planRuns(values).runs.map((run) => ({ run, dir: join(out, slug(run.label)) }));
}

/** The command in-process: returns the exit code; user errors are reported to `io` as one line. */
export function main(argv: string[], io: CliIo = processIo, options: SweepOptions = {}): Promise<number> {
  return runCommand('sweep', (a, i) => sweep(a, i, options), argv, io);
}

/** How the sweep was started: by a user tuning (the default), or by `npm run protocol --run` (cli/protocol.ts). */
export interface SweepOptions {
  /** the protocol's held-out run: reporting seeds are expected, no tuning warning */
  heldOut?: boolean;
  /** runs of sweeps to come (the protocol's later arms) that may ride along this sweep's leaders (sweepRides.ts) */
  riders?: RideCandidate[];
  /** the rides of the protocol's sweeps, across them: a later sweep continues the runs that rode in an earlier one */
  rides?: RideRegistry;
  /** memory a population may use (default: half of this machine's free memory) */
  memoryBudget?: MemoryBudget;
  /** lanes when --jobs is not given (default 1: in-process callers; the command line's is auto) */
  jobs?: number | 'auto';
}

/** Half of the memory this machine has free now: the rest is the system's and the other processes'. */
export function nodeMemoryBudget(): MemoryBudget {
  return { bytes: freemem() / 2, source: 'a population may use here (half of the free memory, os.freemem)' };
}

/** --report: the combined outcome of finished sweeps' folders, written under `out` (no training). */
function combineReports(folders: string, out: string | undefined, io: CliIo): number {
  if (!out) throw new UserError('--report needs --out DIR (where the combined outcome goes)');
  const table = report(folders.split(','), out);
  io.stdout(`${table}\n\noutcome folder: ${out}\n`);
  return 0;
}

/**
 * Refuses a sweep whose largest population (the runs that would train at once, populationMemory.ts) does not fit in
 * memory. Each of `laneCount` lanes is a process of its own, so each gets its share of the budget.
 */
function refuseOversizedPopulation(
  runs: readonly SweepRun[],
  populationSize: number,
  budget: MemoryBudget,
  laneCount: number,
): void {
  const largest = largestPopulation(runs, populationSize);
  const share =
    laneCount > 1 ? { bytes: budget.bytes / laneCount, source: `${budget.source}, ÷ ${laneCount} lanes` } : budget;
  const refusal = largest && populationRefusal(largest.config, largest.members, share);
  const lanesHint = laneCount > 1 ? '; fewer --jobs leave each lane more' : '';
  if (refusal) throw new UserError(`--population-size: ${refusal} (--population-size N caps it${lanesHint})`);
}

/**
 * A lane's follower that leaves its leader is handed to the sweep, for a lane that comes free: its state goes into
 * its folder, the sweep is told (with the step it left at), and this lane skips it. The promise put in `handedOff`
 * (by ride key) says whether the hand-off worked; false: it continues here. `indexOf`: ride key → run index.
 */
function handOffDetached(
  indexOf: ReadonlyMap<string, number>,
  handedOff: Map<string, Promise<boolean>>,
  io: CliIo,
): (ride: Ride, dir: string) => void {
  return (ride, dir) => {
    const end = ride.end;
    const index = indexOf.get(rideKey(dir));
    if (end?.kind !== 'detached' || index === undefined) return;
    // after the leader's step has returned (no tensor scope of its own is open then)
    const written = new Promise((r) => setTimeout(r, 0))
      .then(() => writeDetachedState(ride.folder, end.resume))
      // the lane that continues it takes the folder's lock (runFolderLock.ts)
      .then(() => ride.folder.release())
      .then(() => tellSweep({ type: 'detached', index, step: end.step }))
      .then(
        () => true,
        (e: unknown) => {
          io.stderr(`warning: ${basename(dir)}: not handed to another lane (${String(e)}); continuing it here\n`);
          return false;
        },
      );
    handedOff.set(rideKey(dir), written);
  };
}

/** --continue: a follower another lane handed on continues alone from the state its folder holds (its leader's step). */
async function continueHandedOn(run: SweepRun, dir: string, label: string, latch: InterruptLatch, io: CliIo) {
  const { folder, resume } = await prepareResume(dir, io.stderr);
  io.stderr(`${label}: continues alone from student step ${resume?.state.step ?? 0}\n`);
  const summary = await runExperiment({
    folder,
    config: run.config,
    resume,
    continuation: resume !== null,
    progress: false,
    label,
    interrupt: latch,
    log: (t) => io.stderr(t),
  }).finally(() => folder.release());
  io.stderr(`${label}: ${oneLine(summary)}\n`);
  return summary;
}

async function sweep(argv: string[], io: CliIo, options: SweepOptions = {}): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  refuseBlankPaths({ out: values.out, 'share-from': values['share-from'] });
  if (values['no-share'] && values['share-from']) throw new UserError('give --no-share or --share-from, not both');
  const populationSize = parsePopulationSize(values['population-size']);
  if (values.report) return combineReports(values.report, values.out, io);
  // the held-out-seed warning comes before any refusal of the axes, as soon as the seeds are known
  const { names, presets, sets, spec, runs, axes, seeds } = planRuns(values, (seeds) => {
    // a lane's parent sweep has said it already
    const heldOut = options.heldOut || values.part !== undefined ? null : tuningSeedWarning(seeds);
    if (heldOut) io.stderr(`warning: ${heldOut}\n`);
  });
  // a lane (--part, started by a sweep with --jobs) sweeps its own runs of the whole sweep into the parent's folder
  const total = runs.length;
  const part = values.part !== undefined ? parsePart(values.part, total) : null;
  const numberOf = new Map(runs.map((r, i) => [r.label, i + 1]));
  if (part) runs.splice(0, runs.length, ...part.map((i) => runs[i]!));
  // the protocol's sweeps hand rides across sweeps in this process: they run here, in one lane
  const inProcessOnly = part !== null || options.riders !== undefined || options.rides !== undefined;
  const jobs = inProcessOnly ? 1 : parseJobs(values.jobs, options.jobs ?? 1);
  const lanes = jobs > 1 ? planLanes(runs, jobs, { matchTemperature: spec.matchTemperature !== undefined }) : null;
  // one group may still use two lanes: its followers continue in another once they leave their leader
  const laneCount = lanes && runs.length > 1 ? Math.min(jobs, runs.length) : 1;
  // everything that can be refused is refused before any folder exists
  if (!values['no-share']) {
    const all = [...runs, ...(options.riders ?? []).map((r) => r.run)];
    refuseOversizedPopulation(all, populationSize, options.memoryBudget ?? nodeMemoryBudget(), laneCount);
  }
  for (const run of runs) await startBackend(run.config, io.stderr);
  for (const p of presets) await loadShippedTeacher(applyOverrides(p.config, sets));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const title = names.join('+');
  const out = values.out ?? join(ROOT, 'runs', `sweep-${title}-${stamp}`);
  if (part) {
    if (!existsSync(out)) throw new UserError(`--part: the sweep folder ${out} does not exist (its sweep makes it)`);
  } else prepareSweepFolder(out, options.rides ?? new Map<string, Ride>());
  // the outcome over the finished runs, and the exit code
  const finish = (done: DoneRun[], ok: boolean): number => {
    const meta = { seeds, axes, matchTemperature: spec.matchTemperature ?? null };
    const table = writeOutcome(out, title, about(presets), done, meta);
    io.stdout(`${table}\n\nsweep folder: ${out}\n`);
    return ok ? 0 : 1;
  };
  if (lanes && laneCount > 1) {
    io.stderr(
      `sweep ${title}: ${runs.length} runs → ${out}, in ${laneCount} processes at once ` +
        `(${lanes.groups.length} groups by ${lanes.by}; --jobs 1 runs them in this one)\n`,
    );
    const lane = (task: LaneTask): string[] => laneArgv(values, { out: resolve(out), task });
    const { done, ok } = await sweepInLanes(runs, lanes.groups, laneCount, lane, out, io);
    return finish(done, ok);
  }
  if (!part) io.stderr(`sweep ${title}: ${runs.length} runs → ${out}\n`);
  const curves = new Map<string, CurvePoint[]>();
  let ok = true;
  const latch = new InterruptLatch();
  const removeHandler = installInterrupt(latch);
  // prefix key → the run folder of the first completed run with that prefix (the leader its group forks from)
  const share = !values['no-share'];
  const shareFrom = values['share-from'];
  const leaders = shareFrom ? leadersUnder(shareFrom) : new Map<string, string>();
  // run folder → a run not yet started riding along another's student stage (shared with the protocol's later sweeps)
  const rides: RideRegistry = options.rides ?? new Map<string, Ride>();
  const started = new Set<string>();
  const candidates: RideCandidate[] = [
    ...runs.map((run) => ({ run, dir: join(out, slug(run.label)) })),
    ...(options.riders ?? []),
  ];
  // the followers handed to another lane (handOffDetached), by ride key: true once handed on
  const handedOff = new Map<string, Promise<boolean>>();
  const indexOf = new Map([...numberOf].map(([label, n]) => [rideKey(join(out, slug(label))), n - 1]));
  const onDetached =
    values['hand-off'] && spec.matchTemperature === undefined ? handOffDetached(indexOf, handedOff, io) : undefined;
  let results;
  try {
    results = await runSweep(
      runs,
      spec,
      async (run, n) => {
        const tag = part ? `[${numberOf.get(run.label) ?? '?'}/${total}]` : `[${n + 1}/${runs.length}]`;
        const dir = join(out, slug(run.label));
        if (values.continue) {
          const summary = await continueHandedOn(run, dir, `${tag} ${run.label}`, latch, io);
          if (summary.status !== 'completed') ok = false;
          return summary;
        }
        const handed = handedOff.get(rideKey(dir));
        if (handed && (await handed)) {
          started.add(rideKey(dir));
          return null;
        }
        const key = prefixKeyOf(run.config);
        started.add(rideKey(dir));
        const ride = rides.get(rideKey(dir));
        // its config as it rode (a temperature-matched run gets its evaluation target only now)
        const same = ride !== undefined && JSON.stringify(ride.config) === JSON.stringify(run.config);
        const left = same && ride.end?.kind === 'detached' ? ride.end : null;
        if (ride && !left) {
          // no state to continue from (the leader failed), or not this config's: start over, alone
          io.stderr(`warning: ${run.label}: its ride along ${ride.leader} cannot be continued; running it alone\n`);
          ride.folder.release();
          rmSync(dir, { recursive: true, force: true });
        }
        if (ride && left) {
          io.stderr(
            `${tag} ${run.label}: shared ${ride.leader}'s student steps 1–${left.step}; ` +
              `continues alone (${left.reason})\n`,
          );
        }
        const leader = share && !left ? leaders.get(key) : undefined;
        let forked: Awaited<ReturnType<typeof forkRunFolder>> | null = null;
        if (leader) {
          try {
            forked = await forkRunFolder(leader, dir, run.config);
            io.stderr(`${tag} ${run.label}: prefix shared with ${leader}\n`);
          } catch (e) {
            if (!(e instanceof CheckpointError || e instanceof RunFolderError)) throw e;
            io.stderr(`warning: ${run.label}: not forked from ${leader} (${e.message}); running it alone\n`);
          }
        }
        const { folder, resume } = left
          ? { folder: ride!.folder, resume: left.resume }
          : (forked ?? { folder: RunFolder.create(dir, run.config), resume: null });
        // a ride whose hand-off to another lane failed gave its lock back: take it again (kept when still held)
        folder.lock();
        const summary = await runExperiment({
          folder,
          config: run.config,
          resume,
          continuation: left !== null,
          followers: share
            ? () =>
                openRides(run, dir, candidates, {
                  rides,
                  started,
                  max: populationSize - 1,
                  log: (t) => io.stderr(t),
                  onDetached,
                })
            : null,
          progress: !values['no-progress'],
          label: `${tag} ${run.label}`,
          interrupt: latch,
          log: (t) => io.stderr(t),
        }).finally(() => folder.release());
        curves.set(run.label, readCurve(join(folder.dir, 'metrics.jsonl')));
        io.stderr(`${tag} ${run.label}: ${oneLine(summary)}\n`);
        if (summary.status !== 'completed') ok = false;
        else if (share && !leaders.has(key)) leaders.set(key, dir);
        return summary;
      },
      {
        warn: (m) => io.stderr(`warning: ${m}\n`),
        stop: (summary) => summary.status === 'interrupted',
      },
    );
  } finally {
    removeHandler();
  }
  // a lane's runs are in the parent's outcome, which it writes once every lane has ended
  if (part) return ok ? 0 : 1;
  const done = results.map(({ run, summary }) => ({
    point: run.point,
    summary,
    label: run.label,
    curve: curves.get(run.label) ?? [],
    envKey: JSON.stringify(run.config.env),
  }));
  return finish(done, ok);
}

if (isEntryPoint(import.meta.url)) runCliMain('sweep', (argv, io) => sweep(argv, io, { jobs: 'auto' }));
