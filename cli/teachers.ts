// `npm run teachers -- [--tasks N] [--preset NAME …] [--set key=value …]`: the shipped teachers' skill dependence.
// For each preset (default: retire-shell, retire-house, retire-shop that name a teacher.checkpoint; --set overrides
// apply to each, e.g. `--set env.seed=2 --set teacher.checkpoint=teachers/shell-world2` for another task world's
// teacher in its own world), loads the frozen
// teacher and reports its S_T (state.json), its success on the first N validation tasks with its skill and with a
// blank skill segment (one sample per task at T = 1, wasm), the gap, and its success with the skill split by whether
// the retrieved entry tells the truth or is misleading. A teacher worth distilling reads its skill.
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { applyOverrides } from '../src/core/experiment/config';
import { createEnvFor } from '../src/core/experiment/envFactory';
import { initBackend } from '../src/engine/backend';
import { PolicyModel } from '../src/engine/model';
import { measureSkillDependence } from '../src/engine/trainer/skillDependence';
import { modelConfigFor } from '../src/engine/modelConfig';
import { runCliMain } from './cliMain';
import { UserError, loadShippedTeacher } from './experimentRunner';
import { ROOT, readPreset } from './presetFiles';

const DEFAULT_PRESETS = ['retire-shell', 'retire-house', 'retire-shop'];

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      tasks: { type: 'string' },
      preset: { type: 'string', multiple: true },
      seed: { type: 'string' },
      set: { type: 'string', multiple: true },
    },
  });
  const tasks = Number(values.tasks ?? 256);
  if (!Number.isInteger(tasks) || tasks < 1)
    throw new UserError(`--tasks: expected an integer ≥ 1, got "${values.tasks}"`);
  const seed = Number(values.seed ?? 0);
  await initBackend('wasm');
  console.log(
    'preset         teacher               S_T (state.json)  with skill  blank skill  gap (points)  truthful / misleading entries (tasks)',
  );
  for (const name of values.preset ?? DEFAULT_PRESETS) {
    const cfg = applyOverrides(readPreset(name).config, values.set ?? []);
    if (!cfg.teacher.checkpoint) {
      console.log(`${name.padEnd(14)} (trains its own teacher; nothing shipped)`);
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
      console.log(
        [
          name.padEnd(14),
          cfg.teacher.checkpoint.padEnd(21),
          String(state.teacherPerformance?.toFixed(3) ?? '?').padEnd(17),
          `${(100 * d.withSkill).toFixed(1)}%`.padEnd(11),
          `${(100 * d.blankSkill).toFixed(1)}%`.padEnd(12),
          (100 * (d.withSkill - d.blankSkill)).toFixed(1).padEnd(13),
          `${(100 * d.withSkillTruthful).toFixed(1)}% / ${(100 * d.withSkillMisleading).toFixed(1)}% (${d.tasks - d.misleadingTasks} / ${d.misleadingTasks})`,
        ].join(' '),
      );
    } finally {
      model.dispose();
    }
  }
  return 0;
}

runCliMain('teachers', main);
