// `npm run experiment -- --preset NAME [--seed N] [--backend cpu|wasm|webgpu] [--out DIR] [--set key=value …]
// [--resume DIR] [--no-progress]`: one run of the SFT → teacher → student → evaluation pipeline into a run folder.
// Exit codes: 0 completed; 1 the run failed (non-finite loss…; the last good checkpoint is kept); 2 user error;
// 130 interrupted (a checkpoint was written: continue with --resume DIR).
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { applyOverrides, BACKEND_CHOICES, configKeys } from '../src/core/experiment/config';
import {
  availablePresets,
  exportTeacher,
  oneLine,
  prepareResume,
  readPreset,
  ROOT,
  runExperiment,
  UserError,
} from './experimentRunner';
import { RunFolder } from './runFolder';
import { runCliMain } from './cliMain';

const USAGE = `usage: npm run experiment -- --preset NAME [options]

Runs demonstrations → SFT → teacher GRPO (with skill) → student GRPO + λ_opd·OPD under the schedule → evaluation,
writing config.json, metrics.jsonl, summary.json, report.md and checkpoints/ into the run folder.

  --preset NAME          one of: ${availablePresets().join(', ')}
  --seed N               run seed (default: the preset's)
  --backend B            ${BACKEND_CHOICES.filter((b) => b !== 'webgl').join(' | ')} (default: the preset's)
  --out DIR              run folder (default runs/<preset>-seed<N>-<time>)
  --set key=value        override a config key (dotted, repeatable), e.g. --set student.schedule=never
  --resume DIR           continue the run in DIR from its latest checkpoint (same config)
  --no-progress          no progress bar
  --list-keys            print every config key
  --export-teacher DIR   after the run, write its frozen teacher to DIR (for teacher.checkpoint)

Ctrl-C writes a checkpoint and exits; continue with --resume DIR.`;

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
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
      },
    }));
  } catch (e) {
    process.stderr.write(`experiment: ${(e as Error).message.split('\n')[0]}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values['list-keys']) {
    process.stdout.write(`${configKeys().join('\n')}\n`);
    return 0;
  }
  let folder: RunFolder;
  let config;
  let resume = null;
  if (values.resume !== undefined) {
    if (values.preset || values.set || values.seed || values.backend || values.out) {
      throw new UserError(
        '--resume continues a run with its own config.json: do not combine it with --preset, --set, --seed, --backend or --out',
      );
    }
    ({ folder, config, resume } = await prepareResume(values.resume));
    process.stderr.write(`resuming ${values.resume} from ${resume.state.stage} step ${resume.state.step}\n`);
  } else {
    if (!values.preset) throw new UserError(`--preset is required (available: ${availablePresets().join(', ')})`);
    const preset = readPreset(values.preset);
    if (preset.sweep)
      process.stderr.write(
        `note: preset ${preset.name} is a sweep; running its base config once (npm run sweep -- --preset ${preset.name} runs all)\n`,
      );
    const sets = [...(values.set ?? [])];
    if (values.seed !== undefined) sets.push(`seed=${values.seed}`);
    if (values.backend !== undefined) sets.push(`runtime.backend=${values.backend}`);
    config = applyOverrides(preset.config, sets);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
    const out = values.out ?? join(ROOT, 'runs', `${preset.name}-seed${config.seed}-${stamp}`);
    folder = RunFolder.create(out, config);
  }
  const summary = await runExperiment({ folder, config, resume, progress: !values['no-progress'] });
  process.stdout.write(`${oneLine(summary)}\nrun folder: ${folder.dir}\n`);
  if (summary.status === 'interrupted') {
    process.stdout.write(`interrupted: continue with npm run experiment -- --resume ${folder.dir}\n`);
    return 130;
  }
  if (summary.status === 'failed') {
    process.stderr.write(
      `run failed: ${summary.error}\nthe last good checkpoint is in ${join(folder.dir, 'checkpoints')}\n`,
    );
    return 1;
  }
  if (values['export-teacher']) {
    const shown = argv.filter((a, i) => a !== '--out' && argv[i - 1] !== '--out' && a !== '--no-progress');
    await exportTeacher(folder, values['export-teacher'], `npm run experiment -- ${shown.join(' ')}`);
    process.stdout.write(`teacher exported to ${values['export-teacher']}\n`);
  }
  return 0;
}

runCliMain('experiment', main);
