// `node --import tsx cli/pairedReport.ts --dir SWEEP_DIR --by KEY --baseline VALUE [--seeds 1000,…] [--title T]
// [--preset NAME] [--intro FILE] [--note TEXT]… [--out PAGE]`: the finished runs of one sweep folder, grouped into
// arms by the value of one config key (e.g. student.distill.form), each arm paired on the seed against the baseline
// arm (src/core/experiment/pairedArms.ts). The page carries the command, the commit and the date. Node only.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError, withFsErrors } from '../src/core/errors';
import { getConfigValue, validateConfig, type ExperimentConfig } from '../src/core/experiment/config';
import { pairedArmsPage, type ArmRun } from '../src/core/experiment/pairedArms';
import type { RunSummary } from '../src/core/experiment/summary';
import { parseFlags, refuseBlankPaths } from './cliArgs';
import { currentCommit } from './gitCommit';
import { isEntryPoint, runCliMain, type CliIo } from './cliMain';
import { readPreset } from './presetFiles';

const USAGE =
  'usage: node --import tsx cli/pairedReport.ts --dir SWEEP_DIR --by KEY --baseline VALUE [--seeds S1,S2,…] ' +
  '[--title TEXT] [--preset NAME] [--intro FILE] [--note TEXT]… [--out PAGE]';

export function readJson(path: string): unknown {
  const text = withFsErrors(path, 'reading a sweep folder', () => readFileSync(path, 'utf8'));
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new UserError(`${path}: not valid JSON (${(e as Error).message.slice(0, 80)})`);
  }
}

/** Every completed run directly under `dir` (summary.json with status completed), with its validated config.json. */
export function completedRuns(dir: string): { name: string; config: ExperimentConfig; summary: RunSummary }[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`--dir ${dir}: not a folder`);
  const runs: { name: string; config: ExperimentConfig; summary: RunSummary }[] = [];
  for (const name of readdirSync(dir).sort()) {
    const runDir = join(dir, name);
    const summaryPath = join(runDir, 'summary.json');
    if (!statSync(runDir).isDirectory() || !existsSync(summaryPath)) continue;
    const summary = readJson(summaryPath) as RunSummary;
    if (summary.status !== 'completed') continue;
    const configPath = join(runDir, 'config.json');
    runs.push({ name, config: validateConfig(readJson(configPath), configPath), summary });
  }
  return runs;
}

/** Every completed run directly under `dir`, as an arm of the `key` axis. */
export function readArmRuns(dir: string, key: string): ArmRun[] {
  return completedRuns(dir).map(({ config, summary }) => ({
    arm: String(getConfigValue(config, key)),
    seed: summary.seed,
    test: summary.test.successRate,
    testAt: new Map(summary.temperatureControl.map((t) => [t.temperature, t.successRate])),
    triggerStep: summary.gate.triggerStep,
  }));
}

/** One argument as a POSIX shell reads it back: bare when plain, else single-quoted. */
export function shellWord(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export async function pairedReport(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    dir: { type: 'string' },
    by: { type: 'string' },
    baseline: { type: 'string' },
    seeds: { type: 'string' },
    title: { type: 'string' },
    intro: { type: 'string' },
    preset: { type: 'string' },
    note: { type: 'string', multiple: true },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  refuseBlankPaths({ dir: values.dir, out: values.out, intro: values.intro });
  if (!values.dir || !values.by || !values.baseline)
    throw new UserError(`--dir, --by and --baseline are required\n${USAGE}`);
  const runs = readArmRuns(values.dir, values.by);
  const seeds = values.seeds
    ? values.seeds.split(',').map((s) => {
        const n = Number(s);
        if (!Number.isSafeInteger(n) || n < 0) throw new UserError(`--seeds: "${s}" is not a seed (an integer ≥ 0)`);
        return n;
      })
    : [...new Set(runs.map((r) => r.seed))].sort((a, b) => a - b);
  // the arms the preset's sweep planned on the --by axis (so an arm with no finished run is named), then any other
  const preset = values.preset ? readPreset(values.preset) : null;
  const planned = (preset?.sweep?.axes[values.by] ?? []).map(String);
  const arms = [...new Set([values.baseline, ...planned, ...runs.map((r) => r.arm)])];
  const introFile = values.intro
    ? withFsErrors(values.intro, 'reading --intro', () => readFileSync(values.intro!, 'utf8'))
    : '';
  // --preset NAME: the preset's own description (what ran, and why each knob is what it is) opens the page
  const presetLine = preset ? `Preset \`${values.preset}\`: ${preset.description}` : '';
  const intro = [presetLine, introFile, ...(values.note ?? [])].filter((t) => t !== '').join('\n\n');
  const page = pairedArmsPage(runs, {
    title: values.title ?? `${values.by}: each arm − ${values.baseline}, paired on the seed`,
    baseline: values.baseline,
    arms,
    seeds,
    intro: intro.trimEnd().split('\n'),
    command: ['node --import tsx cli/pairedReport.ts', ...argv.map(shellWord)].join(' '),
    commit: currentCommit(),
    date: new Date().toISOString().slice(0, 10),
  });
  const out = values.out ?? join(values.dir, 'paired.md');
  withFsErrors(out, 'writing the paired page', () => writeFileSync(out, `${page}\n`));
  io.stdout(`${page}\n\npage: ${out}\n`);
  return 0;
}

if (isEntryPoint(import.meta.url)) runCliMain('pairedReport', pairedReport);
