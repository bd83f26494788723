// `npm run experiment -- --preset NAME [--seed N] [--backend cpu|wasm|webgpu] [--out DIR] [--set key=value …]
// [--resume DIR] [--no-progress]`: one run of the SFT → teacher → student → evaluation pipeline into a run folder.
// Exit codes: 0 completed; 1 the run failed (non-finite loss…; the last good checkpoint is kept); 2 user error;
// 130 interrupted by Ctrl-C, 143 by SIGTERM (a checkpoint was written: continue with --resume DIR).
import { join } from 'node:path';
import { RunFolderError, UserError } from '../src/core/errors';
import { applyOverrides } from '../src/core/experiment/config';
import { tuningSeedWarning } from '../src/core/experiment/seedProtocol';
import { parseSeed } from '../src/core/experiment/numberText';
import { configKeyTable, type ConfigKeyInfo } from '../src/core/experiment/configSchema';
import { NODE_BACKEND_NAMES } from '../src/core/methodVocabulary';
import { parseFlags, refuseBlankPaths } from './cliArgs';
import {
  exportTeacher,
  installInterrupt,
  loadShippedTeacher,
  oneLine,
  prepareResume,
  runExperiment,
  startBackend,
} from './experimentRunner';
import { availablePresets, readPreset, ROOT } from './presetFiles';
import { isEntryPoint, processIo, runCliMain, runCommand, type CliIo } from './cliMain';
import { InterruptLatch, SIGNAL_EXIT_CODE } from './interrupt';
import { RunFolder } from './runFolder';

const USAGE = `usage: npm run experiment -- --preset NAME [options]

Runs demonstrations → SFT → teacher GRPO (with skill) → student GRPO + λ_opd·OPD under the schedule → evaluation,
writing config.json, metrics.jsonl, summary.json, report.md and checkpoints/ into the run folder.

  --preset NAME          one of: ${availablePresets().join(', ')}
  --seed N               run seed (default: the preset's)
  --backend B            ${NODE_BACKEND_NAMES.join(' | ')} (default: the preset's)
  --out DIR              run folder (default runs/<preset>-seed<N>-<time>)
  --set key=value        override a config key (dotted, repeatable), e.g. --set student.schedule=never
  --resume DIR           continue the run in DIR from its latest checkpoint (same config)
  --no-progress          no progress bar
  --list-keys            print every config key: its type, default and meaning
  --export-teacher DIR   after the run, write its frozen teacher to DIR (for teacher.checkpoint)

Ctrl-C (or SIGTERM) writes a checkpoint and exits; continue with --resume DIR.`;

/**
 * `--list-keys`: one block per leaf key, `key  type  (default: JSON)` on the first line and its description,
 * indented, on the second (followed, for a key added later, by what its absence from a saved config means).
 */
export function formatKeyTable(rows: readonly ConfigKeyInfo[]): string {
  return rows
    .map((r) => {
      const saved =
        'savedConfigFallback' in r
          ? ` (absent from a config saved before the key existed: ${JSON.stringify(r.savedConfigFallback)})`
          : '';
      return `${r.key}  ${r.type}  (default: ${JSON.stringify(r.default)})\n    ${r.description}${saved}\n`;
    })
    .join('');
}

/**
 * The command, in-process: returns the exit code (0 completed, 1 run failed or defect, 2 user error, 130 or 143
 * interrupted); user errors are reported to `io` as one line. The script entry below runs it on process.argv.
 */
export function main(argv: string[], io: CliIo = processIo): Promise<number> {
  return runCommand('experiment', experiment, argv, io);
}

async function experiment(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    preset: { type: 'string' },
    seed: { type: 'string' },
    backend: { type: 'string' },
    out: { type: 'string' },
    set: { type: 'string', multiple: true },
    resume: { type: 'string' },
    'no-progress': { type: 'boolean' },
    'list-keys': { type: 'boolean' },
    'export-teacher': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  if (values['list-keys']) {
    io.stdout(formatKeyTable(configKeyTable()));
    return 0;
  }
  refuseBlankPaths({ out: values.out, resume: values.resume, 'export-teacher': values['export-teacher'] });
  // Ctrl-C from here on is remembered and reaches the trainer once it exists (it then stops with a checkpoint)
  const latch = new InterruptLatch();
  const removeHandler = installInterrupt(latch);
  // the run folder once made or opened: its lock (runFolderLock.ts) is given back however the command ends
  let folder: RunFolder | null = null;
  try {
    let config;
    let resume = null;
    if (values.resume !== undefined) {
      if (values.preset || values.set || values.seed || values.backend || values.out) {
        throw new UserError(
          '--resume continues a run with its own config.json: do not combine it with --preset, --set, --seed, --backend or --out',
        );
      }
      ({ folder, config, resume } = await prepareResume(values.resume, io.stderr));
      await startBackend(config, io.stderr);
      io.stderr(
        resume
          ? `resuming ${values.resume} from ${resume.state.stage} step ${resume.state.step}\n`
          : `restarting ${values.resume} from the beginning (it stopped before its first checkpoint)\n`,
      );
    } else {
      if (!values.preset) throw new UserError(`--preset is required (available: ${availablePresets().join(', ')})`);
      const preset = readPreset(values.preset);
      const sets = [...(values.set ?? [])];
      if (values.seed !== undefined) {
        const seed = parseSeed(values.seed);
        if ('error' in seed) throw new UserError(`--seed: ${seed.error}`);
        sets.push(`seed=${seed.value}`);
      }
      if (values.backend !== undefined) sets.push(`runtime.backend=${values.backend}`);
      config = applyOverrides(preset.config, sets);
      const heldOut = tuningSeedWarning([config.seed]);
      if (heldOut) io.stderr(`warning: ${heldOut}\n`);
      if (values['export-teacher'] !== undefined && values['export-teacher'] === values.out)
        throw new RunFolderError('--export-teacher must name another folder than --out');
      // everything that can be refused is refused before the run folder exists
      await startBackend(config, io.stderr);
      await loadShippedTeacher(config);
      if (preset.sweep)
        io.stderr(
          `note: preset ${preset.name} is a sweep; running its base config once (npm run sweep -- --preset ${preset.name} runs all)\n`,
        );
      const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
      const out = values.out ?? join(ROOT, 'runs', `${preset.name}-seed${config.seed}-${stamp}`);
      folder = RunFolder.create(out, config);
    }
    const summary = await runExperiment({
      folder,
      config,
      resume,
      progress: !values['no-progress'],
      interrupt: latch,
      log: (t) => io.stderr(t),
    });
    io.stdout(`${oneLine(summary)}\nrun folder: ${folder.dir}\n`);
    if (summary.status === 'interrupted') {
      io.stdout(`interrupted: continue with npm run experiment -- --resume ${folder.dir}\n`);
      return SIGNAL_EXIT_CODE[latch.signal];
    }
    if (summary.status === 'failed') {
      io.stderr(`run failed: ${summary.error}\nthe last good checkpoint is in ${join(folder.dir, 'checkpoints')}\n`);
      return 1;
    }
    if (values['export-teacher']) {
      const shown = argv.filter((a, i) => a !== '--out' && argv[i - 1] !== '--out' && a !== '--no-progress');
      await exportTeacher(folder, values['export-teacher'], `npm run experiment -- ${shown.join(' ')}`);
      io.stdout(`teacher exported to ${values['export-teacher']}\n`);
    }
    return 0;
  } finally {
    folder?.release();
    removeHandler();
  }
}

if (isEntryPoint(import.meta.url)) runCliMain('experiment', experiment);
