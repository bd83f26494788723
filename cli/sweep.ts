// `npm run sweep -- --preset NAME [--seeds 0,1,2] [--vary key=v1,v2 …] [--set key=value …] [--backend B]
// [--out DIR] [--no-progress]`: every point of a sweep (a sweep preset's axes, or --vary axes over any preset) for
// every seed, one run folder each, then comparison.md / comparison.json: final test success mean ± std over seeds,
// trigger steps, teacher forwards saved, wall time. Runs are sequential (one process, one backend). A preset with
// sweep.matchTemperature (actobs-vs-actionsft) runs its reference arm first per seed and evaluates the other arm at
// the temperature matching the reference's argument-token entropy (an extra column of the table).
// Exit codes: 0 all runs completed; 1 some run failed or was interrupted; 2 user error.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UserError, withFsErrors } from '../src/core/errors';
import { applyOverrides } from '../src/core/experiment/config';
import {
  compareRuns,
  expandSweep,
  formatComparisonTable,
  parseSweepSpec,
  runSweep,
} from '../src/core/experiment/sweep';
import {
  availablePresets,
  installInterrupt,
  loadShippedTeacher,
  oneLine,
  readPreset,
  ROOT,
  runExperiment,
  startBackend,
} from './experimentRunner';
import { isEntryPoint, processIo, runCliMain, runCommand, type CliIo } from './cliMain';
import { InterruptLatch } from './interrupt';
import { RunFolder } from './runFolder';

/** More runs than this in one sweep is almost surely a typo in --seeds or --vary. */
const MAX_RUNS = 1000;

const USAGE = `usage: npm run sweep -- --preset NAME [options]

  --preset NAME        base preset (sweep presets bring their own axes and seeds): ${availablePresets().join(', ')}
  --seeds 0,1,2        seeds (default: the preset's sweep seeds, else 0,1,2)
  --vary key=v1,v2     an axis (dotted config key, comma-separated values; repeatable; replaces the preset's axes)
  --set key=value      override the base config (repeatable)
  --backend B          cpu | wasm | webgpu
  --out DIR            sweep folder (default runs/sweep-<preset>-<time>)
  --no-progress        no progress bars`;

function slug(label: string): string {
  return label.replace(/[^A-Za-z0-9.=-]+/g, '_').replace(/=/g, '-');
}

function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** The command in-process: returns the exit code; user errors are reported to `io` as one line. */
export function main(argv: string[], io: CliIo = processIo): Promise<number> {
  return runCommand('sweep', sweep, argv, io);
}

async function sweep(argv: string[], io: CliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        preset: { type: 'string' },
        seeds: { type: 'string' },
        vary: { type: 'string', multiple: true },
        set: { type: 'string', multiple: true },
        backend: { type: 'string' },
        out: { type: 'string' },
        'no-progress': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UserError(`${(e as Error).message.split('\n')[0]!.slice(0, 200)} (see --help)`);
  }
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  if (!values.preset) throw new UserError(`--preset is required (available: ${availablePresets().join(', ')})`);
  const preset = readPreset(values.preset);
  const sets = [...(values.set ?? [])];
  if (values.backend !== undefined) sets.push(`runtime.backend=${values.backend}`);
  const base = applyOverrides(preset.config, sets);
  let seeds = preset.sweep?.seeds ?? [0, 1, 2];
  if (values.seeds !== undefined) {
    const shown = values.seeds.slice(0, 60);
    seeds = values.seeds.split(',').map((s) => {
      const n = s.trim() === '' ? NaN : Number(s.trim());
      if (!Number.isInteger(n) || n < 0 || n > 0xffffffff)
        throw new UserError(`--seeds: expected comma-separated integers in 0 … 4294967295, got "${shown}"`);
      return n;
    });
    if (new Set(seeds).size !== seeds.length) throw new UserError(`--seeds: a seed appears twice in "${shown}"`);
  }
  let axes: Record<string, unknown[]> = preset.sweep?.axes ?? {};
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
  const spec = parseSweepSpec(match ? { seeds, axes, matchTemperature: match } : { seeds, axes }, base, 'sweep');
  const total = spec.seeds.length * Object.values(spec.axes).reduce((n, vs) => n * vs.length, 1);
  if (total > MAX_RUNS)
    throw new UserError(`--seeds × --vary: ${total} runs, at most ${MAX_RUNS} in one sweep (split it into several)`);
  const runs = expandSweep(base, spec);
  const slugs = runs.map((r) => slug(r.label));
  const twice = slugs.find((x, i) => slugs.indexOf(x) !== i);
  if (twice !== undefined)
    throw new UserError(`--vary: two points of the sweep have the same folder name "${twice}" (a value given twice?)`);
  // everything that can be refused is refused before any folder exists
  for (const run of runs) await startBackend(run.config);
  await loadShippedTeacher(base);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const out = values.out ?? join(ROOT, 'runs', `sweep-${preset.name}-${stamp}`);
  RunFolder.prepareEmpty(out, '--out');
  io.stderr(`sweep ${preset.name}: ${runs.length} runs → ${out}\n`);
  let ok = true;
  const latch = new InterruptLatch();
  const removeHandler = installInterrupt(latch);
  let results;
  try {
    results = await runSweep(
      runs,
      spec,
      async (run, i) => {
        const folder = RunFolder.create(join(out, slug(run.label)), run.config);
        const summary = await runExperiment({
          folder,
          config: run.config,
          resume: null,
          progress: !values['no-progress'],
          label: `[${i + 1}/${runs.length}] ${run.label}`,
          interrupt: latch,
          log: (t) => io.stderr(t),
        });
        io.stderr(`[${i + 1}/${runs.length}] ${run.label}: ${oneLine(summary)}\n`);
        if (summary.status !== 'completed') ok = false;
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
  const done = results.map(({ run, summary }) => ({ point: run.point, summary, label: run.label }));
  const rows = compareRuns(done);
  const table = formatComparisonTable(rows);
  const write = (file: string, text: string): void =>
    withFsErrors(join(out, file), 'writing the sweep comparison', () => writeFileSync(join(out, file), text));
  write('comparison.md', `# Sweep ${preset.name}\n\n${preset.description}\n\n${table}\n`);
  write(
    'comparison.json',
    JSON.stringify(
      {
        preset: preset.name,
        seeds,
        axes,
        matchTemperature: spec.matchTemperature ?? null,
        rows,
        runs: done.map((d) => ({ label: d.label, summary: d.summary })),
      },
      null,
      1,
    ),
  );
  io.stdout(`${table}\n\nsweep folder: ${out}\n`);
  return ok ? 0 : 1;
}

if (isEntryPoint(import.meta.url)) runCliMain('sweep', sweep);
