// A sweep's rides (docs/ablations.md, "Shared student steps"): the runs not yet started that ride along a leader's
// student stage as its followers (src/engine/trainer/followers.ts), keyed by their run folder. A sweep's own runs
// ride along its own leaders; `npm run protocol` also hands a sweep the runs of the arms it will run later (riders),
// whose rides it keeps in one registry across its sweeps, so that OPD throughout and the gate's ablations ride along
// the RetireOPD arm of their seed. Node only.
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { RunFolderError } from '../src/core/errors';
import type { ExperimentConfig } from '../src/core/experiment/config';
import type { SweepRun } from '../src/core/experiment/sweep';
import { trajectoryKeyOf } from '../src/core/experiment/trajectoryKey';
import type { FollowerEnd, FollowerSpec } from '../src/engine/trainer/followers';
import { checkpointName } from '../src/core/runLog/checkpointName';
import { encodeCheckpoint, sealCheckpoint, type CheckpointContent } from '../src/engine/trainer/checkpoint';
import type { TrainerState } from '../src/engine/trainer/trainerState';
import { forkRunFolder } from './prefixFork';
import { RunFolder } from './runFolder';

/** A run riding along another's student stage: its folder, its config then, whose, and how the ride ended. */
export interface Ride {
  folder: RunFolder;
  config: ExperimentConfig;
  leader: string;
  end: FollowerEnd | null;
}

/** Rides by run folder (its resolved path). */
export type RideRegistry = Map<string, Ride>;

/** A run a sweep may take as a follower, and the run folder it will have. */
export interface RideCandidate {
  run: SweepRun;
  dir: string;
}

export const rideKey = (dir: string): string => resolve(dir);

/**
 * The largest population `runs` form when each leader takes along the later runs with its trajectory key, at most
 * `populationSize` runs in all (a leader and its riders), with its leader's config; null for no runs.
 */
export function largestPopulation(
  runs: readonly SweepRun[],
  populationSize: number,
): { members: number; config: ExperimentConfig } | null {
  const byKey = new Map<string, { count: number; config: ExperimentConfig }>();
  for (const run of runs) {
    const key = trajectoryKeyOf(run.config);
    const group = byKey.get(key);
    if (group) group.count++;
    else byKey.set(key, { count: 1, config: run.config });
  }
  let largest: { members: number; config: ExperimentConfig } | null = null;
  for (const { count, config } of byKey.values()) {
    const members = Math.min(count, populationSize);
    if (!largest || members > largest.members) largest = { members, config };
  }
  return largest;
}

/**
 * The candidates that can ride along `leader`'s student stage (same trajectory key, not yet started, not riding),
 * at most `max`: each gets its run folder forked from the leader's folder `leaderDir` and is entered in `rides`.
 */
export async function openRides(
  leader: SweepRun,
  leaderDir: string,
  candidates: readonly RideCandidate[],
  opts: {
    rides: RideRegistry;
    started: ReadonlySet<string>;
    max: number;
    log: (text: string) => void;
    /** told (synchronously, inside the leader's step) as soon as a ride ends by leaving its leader */
    onDetached?: (ride: Ride, dir: string) => void;
  },
): Promise<FollowerSpec[]> {
  const key = trajectoryKeyOf(leader.config);
  const specs: FollowerSpec[] = [];
  for (const { run, dir } of candidates) {
    if (specs.length >= opts.max) break;
    const at = rideKey(dir);
    if (opts.started.has(at) || opts.rides.has(at) || trajectoryKeyOf(run.config) !== key) continue;
    const { folder } = await forkRunFolder(leaderDir, dir, run.config);
    const ride: Ride = { folder, config: run.config, leader: leader.label, end: null };
    opts.rides.set(at, ride);
    specs.push({
      config: run.config,
      storage: folder.checkpoints,
      onEvent: (e) => folder.record(e),
      end: (how) => {
        ride.end = how;
        if (how.kind === 'detached') opts.onDetached?.(ride, dir);
      },
    });
    opts.log(`${run.label}: rides along ${leader.label}'s student stage\n`);
  }
  return specs;
}

/**
 * Check that a sweep's folder `out` is new or empty but for run folders riding in `rides` (an earlier sweep of the
 * protocol made them), and create it. Otherwise the usual refusal (RunFolder.prepareEmpty).
 */
export function prepareSweepFolder(out: string, rides: RideRegistry): void {
  const riding = new Set([...rides.keys()].filter((k) => dirname(k) === resolve(out)).map((k) => basename(k)));
  if (riding.size === 0 || !existsSync(out)) return RunFolder.prepareEmpty(out, '--out');
  const others = readdirSync(out).filter((n) => !riding.has(n));
  if (others.length > 0)
    throw new RunFolderError(
      `--out ${out} is not empty (${others.length} entries such as ${others.slice(0, 3).join(', ')}): choose a new or empty folder`,
    );
}

/**
 * Write where a ride left its leader (its state after the last shared step) into its run folder as the checkpoint
 * that step's name gives, marked latest, without an event: its events.jsonl stays the run made alone's. Another
 * process then continues it from the folder (prepareResume, with `continuation`); the run's later checkpoints prune
 * it as they would any mid-stage one.
 */
export async function writeDetachedState(folder: RunFolder, resume: CheckpointContent<TrainerState>): Promise<void> {
  const { stage, step } = resume.state;
  const files = await encodeCheckpoint(resume);
  await sealCheckpoint(files, { stage, step }, folder.checkpoints.sha256?.bind(folder.checkpoints));
  await folder.checkpoints.write(checkpointName(stage, step), files);
}
