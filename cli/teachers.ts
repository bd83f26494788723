// `npm run teachers -- [--tasks N] [--preset NAME …] [--set key=value …]`: the shipped teachers' skill dependence.
// For each preset (default: retire-shell, retire-house, retire-shop that name a teacher.checkpoint; --set overrides
// apply to each, e.g. `--set env.seed=2 --set teacher.checkpoint=teachers/shell-world2` for another task world's
// teacher in its own world), loads the frozen
// teacher and reports its S_T (state.json), its success on the first N validation tasks with its skill and with a
// blank skill segment (one sample per task at T = 1, wasm), the gap, and its success with the skill split by whether
// the retrieved entry tells the truth or is misleading. A teacher worth distilling reads its skill.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { applyOverrides } from '../src/core/experiment/config';
import { createEnvFor } from '../src/core/experiment/envFactory';
import { initBackend } from '../src/engine/backend';
import { PolicyModel } from '../src/engine/model';
import { measureSkillDependence } from '../src/engine/trainer/skillDependence';
import { modelConfigFor } from '../src/engine/modelConfig';
import { parseFlags } from './cliArgs';
import { isEntryPoint, runCliMain, type CliIo } from './cliMain';
import { UserError, loadShippedTeacher } from './experimentRunner';
import { ROOT, readPreset } from './presetFiles';

const DEFAULT_PRESETS = ['retire-shell', 'retire-house', 'retire-shop'];

const USAGE =
  'usage: npm run teachers -- [--tasks N] [--seed N] [--preset NAME …] [--set key=value …]\n' +
  '  --tasks N       validation tasks to measure on (default 256)\n' +
  '  --seed N        the sampling seed (default 0)\n' +
  `  --preset NAME   a preset that names a teacher.checkpoint (repeatable; default ${DEFAULT_PRESETS.join(', ')})\n` +
  "  --set key=value override each preset's config (repeatable), e.g. env.seed=2 and teacher.checkpoint=teachers/shell-world2\n";

export async function main(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    tasks: { type: 'string' },
    preset: { type: 'string', multiple: true },
    seed: { type: 'string' },
    set: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const tasks = Number(values.tasks ?? 256);
  if (!Number.isInteger(tasks) || tasks < 1)
    throw new UserError(`--tasks: expected an integer ≥ 1, got "${values.tasks}"`);
  const seed = Number(values.seed ?? 0);
  if (!Number.isInteger(seed) || seed < 0) throw new UserError(`--seed: expected an integer ≥ 0, got "${values.seed}"`);
  await initBackend('wasm');
  io.stdout(
    'preset         teacher               S_T (state.json)  with skill  blank skill  gap (points)  truthful / misleading entries (tasks)\n',
  );
  for (const name of values.preset ?? DEFAULT_PRESETS) {
    const cfg = applyOverrides(readPreset(name).config, values.set ?? []);
    if (!cfg.teacher.checkpoint) {
      io.stdout(`${name.padEnd(14)} (trains its own teacher; nothing shipped)\n`);
      continue;
    }
    const weights = await loadShippedTeacher(cfg);
    const env = createEnvFor(cfg);
    const model = new PolicyModel(modelConfigFor(cfg, env), 0, `teacher-check-${name}`);
    try {
      model.setWeights(weights ?? []);
      const state = JSON.parse(readFileSync(join(ROOT, 'public', cfg.teacher.checkpoint, 'state.json'), 'utf8')) as {
        teacherPerformance?: number;
      };
      const d = await measureSkillDependence(model, env, tasks, seed);
      io.stdout(
        [
          name.padEnd(14),
          cfg.teacher.checkpoint.padEnd(21),
          String(state.teacherPerformance?.toFixed(3) ?? '?').padEnd(17),
          `${(100 * d.withSkill).toFixed(1)}%`.padEnd(11),
          `${(100 * d.blankSkill).toFixed(1)}%`.padEnd(12),
          (100 * (d.withSkill - d.blankSkill)).toFixed(1).padEnd(13),
          `${(100 * d.withSkillTruthful).toFixed(1)}% / ${(100 * d.withSkillMisleading).toFixed(1)}% (${d.tasks - d.misleadingTasks} / ${d.misleadingTasks})`,
        ].join(' ') + '\n',
      );
    } finally {
      model.dispose();
    }
  }
  return 0;
}

if (isEntryPoint(import.meta.url)) runCliMain('teachers', main);
