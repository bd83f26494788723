// `node --import tsx cli/doseResponse.ts --dir SWEEP_DIR --env NAME [--title T] [--intro FILE] [--out PAGE]`: the
// finished RetireOPD (student.schedule adaptive) and OPD-throughout (never) runs of a sweep over
// env.misleadingSkillFraction, paired on the seed per error level (the "where it helps" map's cells), and the slope
// of the paired difference on the error level over seeds (src/core/experiment/doseResponse.ts). The page carries
// the command, the commit and the date, and the cells go beside it as JSON (PAGE with .json) for the tab's map.
// Node only.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { UserError, withFsErrors } from '../src/core/errors';
import { doseResponsePage, type DoseResponseCells } from '../src/core/experiment/doseResponse';
import { runCells, type MapRun } from '../src/core/experiment/helpsMap';
import { parseFlags, refuseBlankPaths } from './cliArgs';
import { isEntryPoint, runCliMain, type CliIo } from './cliMain';
import { currentCommit } from './gitCommit';
import { completedRuns, shellWord } from './pairedReport';

const USAGE =
  'usage: node --import tsx cli/doseResponse.ts --dir SWEEP_DIR --env NAME [--title TEXT] [--intro FILE] [--out PAGE]';

/** Every completed run directly under `dir`, as the map reads a run. */
export function readMapRuns(dir: string): MapRun[] {
  return completedRuns(dir).map(({ name, config, summary }) => ({
    id: name,
    config,
    testSuccess: summary.test.successRate,
  }));
}

export async function doseResponse(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    dir: { type: 'string' },
    env: { type: 'string' },
    title: { type: 'string' },
    intro: { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  refuseBlankPaths({ dir: values.dir, out: values.out, intro: values.intro });
  if (!values.dir || !values.env) throw new UserError(`--dir and --env are required\n${USAGE}`);
  const cells = runCells(readMapRuns(values.dir)).filter((c) => c.env === values.env);
  if (cells.length === 0)
    throw new UserError(
      `--dir ${values.dir}: no RetireOPD and OPD-throughout runs of env ${values.env} pair on a seed`,
    );
  const intro = values.intro
    ? withFsErrors(values.intro, 'reading --intro', () => readFileSync(values.intro!, 'utf8'))
    : '';
  const commit = currentCommit();
  const date = new Date().toISOString().slice(0, 10);
  const page = doseResponsePage(cells, {
    title: values.title ?? `RetireOPD − OPD throughout by teacher error level, ${values.env}`,
    env: values.env,
    intro,
    command: ['node --import tsx cli/doseResponse.ts', ...argv.map(shellWord)].join(' '),
    commit,
    date,
  });
  const out = values.out ?? join(values.dir, 'dose-response.md');
  const json = out.replace(/\.md$/, '') + '.json';
  // the cells as the tab's map ships them (cli/outcomeFiles.ts): their source is this page, no stored run ids
  const source = relative(process.cwd(), out).split(sep).join('/');
  const shipped: DoseResponseCells = {
    page: source,
    commit,
    date,
    cells: cells.map((c) => ({ ...c, source, note: 'paired by seed, from this sweep', runIds: [] })),
  };
  withFsErrors(out, 'writing the page', () => writeFileSync(out, `${page}\n`));
  withFsErrors(json, 'writing the cells', () => writeFileSync(json, `${JSON.stringify(shipped, null, 2)}\n`));
  io.stdout(`${page}\n\npage: ${out}\ncells: ${json}\n`);
  return 0;
}

if (isEntryPoint(import.meta.url)) runCliMain('doseResponse', doseResponse);
