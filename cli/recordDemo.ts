// `npm run record-demo [-- --jobs N] [--arms a,b]`: record the lesson's runs (src/core/experiment/demoRecording.ts)
// and ship them under public/demo/<preset>/ with public/demo/manifest.json. Each arm is one
// `npm run experiment -- --preset P --set seed=… --set runtime.keepCheckpoints=0` in a child process (two at a time
// by default, one per core), written to tmp/record-demo/<preset>/; the recording keeps the run folder's logs as the
// CLI wrote them and the checkpoints demoCheckpoints picks. Run it again whenever the presets change (the
// recording test, test/core/experiment/demoRecording.test.ts, says when). It also rewrites public/demo/seed-spread.json
// (cli/outcomeFiles.ts), where the recorded seed sits among the held-out reporting seeds.
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { UserError } from '../src/core/errors';
import {
  DEMO_ARMS,
  DEMO_FOLDER,
  DEMO_OVERRIDES,
  DEMO_SEED,
  demoCheckpoints,
  RECORD_DEMO_COMMAND,
  type DemoArm,
  type DemoArmManifest,
  type DemoManifest,
} from '../src/core/experiment/demoRecording';
import { parseCheckpointName } from '../src/core/runLog/checkpointName';
import { parseFlags } from './cliArgs';
import { isEntryPoint, runCliMain, type CliIo } from './cliMain';
import { writeOutcomeFiles } from './outcomeFiles';
import { ROOT } from './presetFiles';

/** The run folder's logs a recording ships (those the run wrote). */
const LOG_FILES = ['config.json', 'metrics.jsonl', 'sft.jsonl', 'teacher.jsonl', 'events.jsonl', 'summary.json'];

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

function commitOf(): string {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'public/presets', 'public/teachers'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${head}+dirty` : head;
  } catch {
    return 'unknown';
  }
}

/** One arm's run, in a child process; resolves with its exit code. */
function runArm(arm: DemoArm, out: string, io: CliIo): Promise<number> {
  const args = ['--import', 'tsx', join(ROOT, 'cli', 'experiment.ts'), '--preset', arm, '--out', out, '--no-progress'];
  for (const line of DEMO_OVERRIDES) args.push('--set', line);
  io.stderr(`record-demo: ${arm} → ${relative(ROOT, out)}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => io.stderr(`[${arm}] ${d.toString()}`));
    child.stderr.on('data', (d: Buffer) => io.stderr(`[${arm}] ${d.toString()}`));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/** Every file below `dir`, relative to it, sorted. */
function filesBelow(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix))
    .flatMap((n) => {
      const rel = prefix ? `${prefix}/${n}` : n;
      return statSync(join(dir, rel)).isDirectory() ? filesBelow(dir, rel) : [rel];
    })
    .sort();
}

/** Copy a finished run folder into public/demo/<arm>/ (logs + picked checkpoints) and describe it. */
function shipArm(arm: DemoArm, runDir: string, dest: string): DemoArmManifest {
  const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as {
    status: string;
    gate: { triggerStep: number | null };
  };
  if (summary.status !== 'completed') throw new UserError(`${runDir}/summary.json: the ${arm} run ${summary.status}`);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  for (const f of LOG_FILES) if (existsSync(join(runDir, f))) cpSync(join(runDir, f), join(dest, f));
  const written = readdirSync(join(runDir, 'checkpoints'))
    .map((name) => ({ name, at: parseCheckpointName(name) }))
    .filter((c): c is { name: string; at: NonNullable<typeof c.at> } => c.at !== null)
    .map((c) => ({ name: c.name, stage: c.at.stage, step: c.at.step }));
  const order = ['demonstrations', 'sft', 'teacher', 'student', 'evaluation'];
  written.sort((a, b) => order.indexOf(a.stage) - order.indexOf(b.stage) || a.step - b.step);
  const triggerStep = summary.gate.triggerStep ?? null;
  const checkpoints = demoCheckpoints(written, triggerStep);
  for (const c of checkpoints)
    cpSync(join(runDir, 'checkpoints', c), join(dest, 'checkpoints', c), { recursive: true });
  const files = filesBelow(dest).map((path) => ({ path, bytes: statSync(join(dest, path)).size }));
  return {
    preset: arm,
    overrides: [...DEMO_OVERRIDES],
    configSha256: sha256(readFileSync(join(dest, 'config.json'))),
    triggerStep,
    checkpoints,
    files,
    bytes: files.reduce((s, f) => s + f.bytes, 0),
  };
}

async function recordDemo(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    jobs: { type: 'string' },
    arms: { type: 'string' },
    'ship-only': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(
      `usage: ${RECORD_DEMO_COMMAND} [-- --jobs N] [--arms ${DEMO_ARMS.join(',')}] [--ship-only]\n` +
        `Records the lesson's runs on seed ${DEMO_SEED} into public/${DEMO_FOLDER}/ (about 10–15 min of CPU).\n`,
    );
    return 0;
  }
  const jobs = values.jobs === undefined ? 2 : Number(values.jobs);
  if (!Number.isSafeInteger(jobs) || jobs < 1) throw new UserError(`--jobs ${values.jobs}: a whole number ≥ 1`);
  const arms = (values.arms?.split(',').map((a) => a.trim()) ?? [...DEMO_ARMS]) as DemoArm[];
  const unknown = arms.filter((a) => !(DEMO_ARMS as readonly string[]).includes(a));
  if (unknown.length) throw new UserError(`--arms: ${unknown.join(', ')} (recorded arms: ${DEMO_ARMS.join(', ')})`);
  const scratch = join(ROOT, 'tmp', 'record-demo');
  const demoDir = join(ROOT, 'public', DEMO_FOLDER);
  const queue = [...arms];
  const failed: string[] = [];
  const lane = async () => {
    for (let arm = queue.shift(); arm !== undefined; arm = queue.shift()) {
      const out = join(scratch, arm);
      rmSync(out, { recursive: true, force: true });
      const code = await runArm(arm, out, io);
      if (code !== 0) failed.push(`${arm} (exit ${code})`);
    }
  };
  // --ship-only: ship the runs a previous record-demo left in tmp/record-demo/ (after changing what is kept)
  if (!values['ship-only']) await Promise.all(Array.from({ length: Math.min(jobs, arms.length) }, lane));
  if (failed.length) throw new UserError(`record-demo: runs failed: ${failed.join(', ')}; nothing was shipped`);
  // arms not re-recorded this time keep their previous entry
  const manifestPath = join(demoDir, 'manifest.json');
  const previous: DemoArmManifest[] = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as DemoManifest).arms
    : [];
  const shipped = new Map(previous.map((a) => [a.preset, a]));
  for (const arm of arms) shipped.set(arm, shipArm(arm, join(scratch, arm), join(demoDir, arm)));
  const entries = DEMO_ARMS.flatMap((a) => shipped.get(a) ?? []);
  const manifest: DemoManifest = {
    seed: DEMO_SEED,
    commit: commitOf(),
    recordedAt: new Date().toISOString(),
    command: RECORD_DEMO_COMMAND,
    arms: entries,
    totalBytes: entries.reduce((s, a) => s + a.bytes, 0),
  };
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
  for (const a of entries)
    io.stdout(
      `${a.preset}: trigger step ${a.triggerStep ?? '–'}, checkpoints ${a.checkpoints.join(' ')}, ${(a.bytes / 1e6).toFixed(2)} MB\n`,
    );
  io.stdout(`total ${(manifest.totalBytes / 1e6).toFixed(2)} MB in public/${DEMO_FOLDER}/ (manifest.json)\n`);
  // the recorded seed among the reporting seeds (seed-spread.json), from the committed held-out pages
  writeOutcomeFiles(io);
  return 0;
}

if (isEntryPoint(import.meta.url)) runCliMain('record-demo', recordDemo);
