// `npm run protocol -- --env shell --seeds reporting|tuning [--dir DIR] [--run] [--out FILE.md] [--backend B]
// [--no-share]`:
// the held-out reporting protocol (docs/protocol.md). Plans the protocol's sweeps into one protocol folder (one sweep
// folder per arm: core/experiment/protocolPlan.ts), runs the missing ones with --run (through `npm run sweep`'s own
// code, cli/sweep.ts, each arm forking from the folder's finished runs that share its config prefix unless --no-share;
// the later arms' runs with RetireOPD's trajectory key — OPD throughout, competence-only, alignment-only — ride along
// the RetireOPD arm's student stage of their seed and are continued by their own arm's sweep, cli/sweepRides.ts;
// fixed:N once the RetireOPD runs have given each seed's trigger step), and reports the story
// tables from whatever finished runs the folder holds (core/experiment/protocolReport.ts) into a Markdown outcome
// page with the commit, the seeds and the command. A reporting table is refused unless every run's seed is a held-out
// one (core/experiment/seedProtocol.ts). Exit codes: 0 done; 1 a sweep had a failed run; 2 user error.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { alignmentDecision, type AlignmentDecision } from '../src/core/alignmentHold';
import { UserError, withFsErrors } from '../src/core/errors';
import { validateConfig } from '../src/core/experiment/config';
import { gateConfigFor } from '../src/core/experiment/gateSettings';
import {
  fixedSweeps,
  plannedArms,
  plannedSweeps,
  sweepCommand,
  type PlannedSweep,
} from '../src/core/experiment/protocolPlan';
import { protocolPage, protocolTables, type ProtocolRun } from '../src/core/experiment/protocolReport';
import { protocolSeedProblem, seedsOf, type SeedSet } from '../src/core/experiment/seedProtocol';
import type { RunSummary } from '../src/core/experiment/summary';
import { ReplayInputError } from '../src/core/replay/logRecords';
import { NODE_BACKEND_NAMES } from '../src/core/methodVocabulary';
import { parseFlags, refuseBlankPaths } from './cliArgs';
import { currentCommit } from './gitCommit';
import { isEntryPoint, processIo, runCliMain, runCommand, type CliIo } from './cliMain';
import { availablePresets } from './presetFiles';
import { ensureFolder } from './runFolder';
import { main as sweepMain, sweepRunsOf, type SweepOptions } from './sweep';
import { rideKey, type Ride, type RideRegistry } from './sweepRides';

const USAGE = `usage: npm run protocol -- --env ENV --seeds reporting|tuning [options]

  --env ENV            environment of the story presets (retire-ENV, opd-ENV, grpo-ENV[, control-ENV])
  --seeds SET          reporting (held out: 1000–1009, run once) or tuning (0–4)
  --dir DIR            protocol folder, one sweep folder per arm (default runs/protocol-ENV-SET)
  --run                run the arms the folder lacks (else: print their commands, report what is there)
  --out FILE           the Markdown outcome page (default DIR/protocol.md), e.g. docs/outcomes/protocol-shell.md
  --backend B          ${NODE_BACKEND_NAMES.join(' | ')} (passed to every sweep)
  --no-share           every run trains alone (default: an arm forks from the finished runs in DIR that share
                       its config prefix, e.g. opd from retire, seed by seed, and the runs of opd and the gate's
                       ablations ride along the retire arm's student stage until their schedules part)
  --no-progress        no progress bars`;

/** What runs one planned sweep (`npm run sweep`'s main; a test passes its own to check the order and arguments). */
export type SweepRunner = (argv: string[], io: CliIo, options: SweepOptions) => Promise<number>;

/** The protocol command in-process: returns the exit code; user errors are reported to `io` as one line. */
export function main(argv: string[], io: CliIo = processIo, runSweep: SweepRunner = sweepMain): Promise<number> {
  return runCommand('protocol', (a, i) => protocol(a, i, runSweep), argv, io);
}

const isFolder = (p: string): boolean => existsSync(p) && statSync(p).isDirectory();

function readJson(path: string): unknown {
  const text = withFsErrors(path, 'reading a protocol folder', () => readFileSync(path, 'utf8'));
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new UserError(`${path}: not valid JSON (${(e as Error).message.slice(0, 80)})`);
  }
}

/** The arm a sweep folder of the protocol folder holds (`fixed-1003` → fixed). */
const armOf = (folder: string): string => (/^fixed-\d+$/.test(folder) ? 'fixed' : folder);

/** Every finished run (summary.json + config.json) under the protocol folder's sweep folders. */
export function readProtocolRuns(dir: string): ProtocolRun[] {
  if (!isFolder(dir)) return [];
  const runs: ProtocolRun[] = [];
  for (const sweep of readdirSync(dir).sort()) {
    const sweepDir = join(dir, sweep);
    if (!isFolder(sweepDir)) continue;
    for (const name of readdirSync(sweepDir).sort()) {
      const runDir = join(sweepDir, name);
      const summaryPath = join(runDir, 'summary.json');
      if (!isFolder(runDir) || !existsSync(summaryPath)) continue;
      const summary = readJson(summaryPath) as RunSummary;
      const configPath = join(runDir, 'config.json');
      const config = validateConfig(readJson(configPath), configPath);
      const arm = armOf(sweep);
      let alignment: AlignmentDecision | null | undefined;
      if (arm === 'retire' && summary.status === 'completed') alignment = replayAlignment(runDir, config, summary);
      runs.push({ arm, seed: summary.seed, summary, lambdaOpd: config.student.lambdaOpd, alignment });
    }
  }
  return runs;
}

/** The RetireOPD run's log under the adaptive and competence-only gates, with the run's own gate settings. */
function replayAlignment(
  runDir: string,
  config: ReturnType<typeof validateConfig>,
  summary: RunSummary,
): AlignmentDecision | null {
  const path = join(runDir, 'metrics.jsonl');
  if (!existsSync(path) || summary.teacherPerformance === null) return null;
  const text = withFsErrors(path, 'reading a run log', () => readFileSync(path, 'utf8'));
  const { lambdaOpd: _unused, ...gate } = gateConfigFor(config, summary.teacherPerformance);
  try {
    return alignmentDecision([{ name: path, text }], { gate });
  } catch (e) {
    if (e instanceof ReplayInputError) return null;
    throw e;
  }
}

async function protocol(argv: string[], io: CliIo, runSweep: SweepRunner): Promise<number> {
  const { values } = parseFlags(argv, {
    env: { type: 'string' },
    seeds: { type: 'string' },
    dir: { type: 'string' },
    out: { type: 'string' },
    run: { type: 'boolean' },
    backend: { type: 'string' },
    'no-progress': { type: 'boolean' },
    'no-share': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  refuseBlankPaths({ dir: values.dir, out: values.out });
  const env = values.env;
  if (!env) throw new UserError('--env is required (e.g. --env shell)');
  const presets = availablePresets();
  if (!presets.includes(`retire-${env}`))
    throw new UserError(
      `--env ${env.slice(0, 40)}: no preset retire-${env.slice(0, 40)} (environments with a story: ${presets
        .filter((p) => p.startsWith('retire-'))
        .map((p) => p.slice(7))
        .join(', ')})`,
    );
  if (values.seeds !== 'reporting' && values.seeds !== 'tuning')
    throw new UserError(`--seeds: expected reporting or tuning, got ${JSON.stringify(values.seeds ?? null)}`);
  const set: SeedSet = values.seeds;
  const seeds = seedsOf(set);
  const dir = values.dir ?? join('runs', `protocol-${env}-${set}`);
  const extra = [
    ...(values.backend !== undefined ? ['--backend', values.backend] : []),
    ...(values['no-progress'] ? ['--no-progress'] : []),
    // every arm forks from the finished runs of the arms before it that share its prefix (docs/ablations.md)
    ...(values['no-share'] ? ['--no-share'] : ['--share-from', dir]),
  ];
  let ok = true;
  // runs of later arms riding along an earlier arm's student stage (OPD throughout and the gate's ablations along
  // RetireOPD, seed by seed): their folders exist before their own sweep runs, which then continues them
  const rides: RideRegistry = new Map<string, Ride>();
  const riding = (p: PlannedSweep): boolean =>
    [...rides.keys()].some((k) => dirname(k) === rideKey(join(dir, p.folder)));
  const pending = (p: PlannedSweep): boolean => !existsSync(join(dir, p.folder)) || riding(p);
  const runOrPrint = async (plan: readonly PlannedSweep[], riders: readonly PlannedSweep[] = []): Promise<void> => {
    for (const p of plan.filter(pending)) {
      if (!values.run) {
        io.stdout(`to run: ${sweepCommand(p)}\n`);
        continue;
      }
      ensureFolder(dir, '--dir');
      io.stderr(`protocol: ${sweepCommand(p)}\n`);
      const ridersNow = values['no-share'] ? [] : riders.filter((r) => pending(r) && r !== p);
      const code = await runSweep([...p.argv, ...extra], io, {
        heldOut: set === 'reporting',
        rides,
        riders: ridersNow.flatMap((r) => sweepRunsOf([...r.argv, ...extra])),
      });
      if (code === 2) throw new UserError(`the sweep for ${p.folder} was refused (see above)`);
      if (code !== 0) ok = false;
    }
  };
  const hasControl = presets.includes(`control-${env}`);
  const plan = plannedSweeps(env, seeds, dir, hasControl);
  // RetireOPD first: fixed:N needs its triggers; the later arms' runs with its trajectory key ride along it
  await runOrPrint(plan.slice(0, 1), plan.slice(1));
  const triggers = new Map(
    readProtocolRuns(dir)
      .filter((r) => r.arm === 'retire' && r.summary.status === 'completed')
      .map((r) => [r.seed, r.summary.gate.triggerStep] as const),
  );
  await runOrPrint(plan.slice(1));
  if (triggers.size > 0) await runOrPrint(fixedSweeps(env, triggers, dir));
  else io.stdout('to run after the RetireOPD arm: fixed:N per seed, N = that seed’s trigger step\n');

  const runs = readProtocolRuns(dir);
  if (runs.length === 0) {
    io.stdout(`no finished runs in ${dir} yet: nothing to report\n`);
    return 0;
  }
  const problem = protocolSeedProblem(set, [...new Set(runs.map((r) => r.seed))]);
  if (problem) throw new UserError(`${dir}: no ${set} protocol table from these runs: ${problem}`);
  const page = protocolPage(protocolTables(runs, { arms: plannedArms(hasControl), seeds }), {
    env,
    seedSet: set,
    seeds,
    commit: currentCommit(),
    command: `npm run protocol -- ${argv.join(' ')}`,
    date: new Date().toISOString().slice(0, 10),
  });
  const out = values.out ?? join(dir, 'protocol.md');
  withFsErrors(out, 'writing the protocol outcome page', () => writeFileSync(out, `${page}\n`));
  io.stdout(`${page}\n\noutcome page: ${out}\n`);
  return ok ? 0 : 1;
}

if (isEntryPoint(import.meta.url)) runCliMain('protocol', (argv, io) => protocol(argv, io, sweepMain));
