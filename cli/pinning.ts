// `npm run pinning -- RUN_DIR [RUN_DIR …] [--tasks N] [--samples N]`: is a trained student pinned to its teacher's
// mistakes? For each run folder, loads the student of its latest checkpoint and reports its test-split
// success (one skill-free episode per sample at T = 1, wasm) grouped by whether the task's skill entry is misleading
// — the facts a skill-following teacher gets wrong — next to the run's teacher on the same tasks with its skill.
// After retirement GRPO can fix those facts; OPD throughout keeps pulling the student toward the teacher's answer.
import { parseFlags } from './cliArgs';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateConfig } from '../src/core/experiment/config';
import { createEnvFor } from '../src/core/experiment/envFactory';
import { RunFolderError } from '../src/core/errors';
import { initBackend } from '../src/engine/backend';
import { weightsFromHost } from '../src/engine/hostTensor';
import { PolicyModel } from '../src/engine/model';
import { modelConfigFor } from '../src/engine/modelConfig';
import { decodeCheckpoint } from '../src/engine/trainer/checkpoint';
import { measureEntrySplit, type EntrySplit } from '../src/engine/trainer/skillDependence';
import { isEntryPoint, processIo, runCliMain, runCommand, type CliIo } from './cliMain';
import { UserError, loadShippedTeacher, readFolder } from './experimentRunner';

const pct = (x: number): string => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '–');

function positiveInt(flag: string, raw: string | undefined, fallback: number): number {
  const n = Number(raw ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new UserError(`--${flag}: expected an integer ≥ 1, got "${raw}"`);
  return n;
}

const USAGE = 'usage: npm run pinning -- RUN_DIR [RUN_DIR …] [--tasks N] [--samples N]';

async function pinning(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { tasks: { type: 'string' }, samples: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    true,
  );
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length === 0) throw new UserError(USAGE);
  const samples = positiveInt('samples', values.samples, 16);
  await initBackend('wasm');
  io.stdout(
    'run                                   schedule   trigger  tasks (truthful/misleading)  student truthful  student misleading  teacher truthful  teacher misleading\n',
  );
  for (const dir of positionals) {
    const cfgPath = join(dir, 'config.json');
    const latestPath = join(dir, 'checkpoints', 'LATEST');
    if (!existsSync(cfgPath) || !existsSync(latestPath))
      throw new RunFolderError(
        `${dir}: not a run folder with a checkpoint (expected config.json and checkpoints/LATEST)`,
      );
    const cfg = validateConfig(JSON.parse(readFileSync(cfgPath, 'utf8')) as unknown, cfgPath);
    const tasks = positiveInt('tasks', values.tasks, cfg.evaluation.testTasks);
    const latest = readFileSync(latestPath, 'utf8').trim();
    const content = decodeCheckpoint(await readFolder(join(dir, 'checkpoints', latest)), (raw) => raw);
    const studentWeights = content.models.student;
    if (!studentWeights) throw new RunFolderError(`${dir}: checkpoint ${latest} holds no student`);
    const env = createEnvFor(cfg);
    const split = async (weights: ReturnType<typeof weightsFromHost>, withSkill: boolean): Promise<EntrySplit> => {
      const model = new PolicyModel(modelConfigFor(cfg, env), 0, `pinning-${withSkill ? 'teacher' : 'student'}`);
      try {
        model.setWeights(weights);
        return await measureEntrySplit(model, env, { split: 'test', tasks, samples, withSkill, seed: cfg.seed });
      } finally {
        model.dispose();
      }
    };
    const student = await split(weightsFromHost(studentWeights), false);
    const teacherRecords = content.models.teacher
      ? weightsFromHost(content.models.teacher)
      : await loadShippedTeacher(cfg);
    const teacher = teacherRecords ? await split(teacherRecords, true) : null;
    const summaryPath = join(dir, 'summary.json');
    const summary = existsSync(summaryPath)
      ? (JSON.parse(readFileSync(summaryPath, 'utf8')) as { gate?: { triggerStep?: number | null } })
      : {};
    io.stdout(
      [
        dir.split('/').filter(Boolean).at(-1)!.padEnd(37),
        cfg.student.schedule.padEnd(10),
        String(summary.gate?.triggerStep ?? '–').padEnd(8),
        `${student.truthfulTasks}/${student.misleadingTasks}`.padEnd(28),
        pct(student.truthful).padEnd(17),
        pct(student.misleading).padEnd(19),
        pct(teacher?.truthful ?? NaN).padEnd(17),
        pct(teacher?.misleading ?? NaN),
      ].join(' ') + '\n',
    );
  }
  return 0;
}

/** `npm run pinning` in-process: exit code 0, or 2 with one `pinning: …` line for a user error. */
export function main(argv: string[], io: CliIo = processIo): Promise<number> {
  return runCommand('pinning', pinning, argv, io);
}

if (isEntryPoint(import.meta.url)) runCliMain('pinning', pinning);
