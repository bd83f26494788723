// `node --import tsx cli/doseResponse.ts --dir SWEEP_DIR [--dir …] [--cells FILE …] --env NAME [--title T]
// [--intro FILE] [--out PAGE]`: the finished RetireOPD (student.schedule adaptive) and OPD-throughout (never) runs of
// sweeps over env.misleadingSkillFraction — one sweep folder per task world (env.seed) or several worlds in one —
// paired on the seed per world and error level (the "where it helps" map's cells), each world's slope of the paired
// difference on the error level, and the slope pooled over worlds (src/core/experiment/doseResponse.ts). --cells adds
// the cells (and teacher rows) of an earlier page's JSON whose run folders are gone; seeds the folders measure are
// added to its cells (a seed both measured takes the folders' value; a level's teacher row, the folders').
// Where the sweeps also ran the competence-only gate, the page sets it beside the two arms (its own section).
// The page carries the command, the commit and the date; the cells and the teacher rows go beside it as JSON (PAGE
// with .json) for the tab's map. Node only.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { UserError, withFsErrors } from '../src/core/errors';
import {
  byWorldAndLevel,
  doseResponsePage,
  type CompetenceOnlyCells,
  type DoseResponseCells,
  type TeacherLevel,
} from '../src/core/experiment/doseResponse';
import {
  cellKey,
  mergeSeeds,
  MAP_ARMS,
  runCells,
  type CellArms,
  type HelpsCell,
  type MapRun,
} from '../src/core/experiment/helpsMap';
import type { ExperimentConfig } from '../src/core/experiment/config';
import type { RunSummary } from '../src/core/experiment/summary';
import { parseFlags, refuseBlankPaths } from './cliArgs';
import { isEntryPoint, runCliMain, type CliIo } from './cliMain';
import { currentCommit } from './gitCommit';
import { completedRuns, shellWord } from './pairedReport';

const USAGE =
  'usage: node --import tsx cli/doseResponse.ts --dir SWEEP_DIR [--dir …] [--cells FILE …] --env NAME [--title TEXT] [--intro FILE] [--out PAGE]';

/** A completed run as the map reads it. */
function mapRun({ name, config, summary }: { name: string; config: ExperimentConfig; summary: RunSummary }): MapRun {
  return { id: name, config, testSuccess: summary.test.successRate };
}

/** Per world and level of `env`: the teacher's mean S_T over the runs, and the RetireOPD runs' retirements. */
export function teacherLevels(
  runs: readonly { config: ExperimentConfig; summary: RunSummary }[],
  env: string,
): TeacherLevel[] {
  const groups = new Map<string, { config: ExperimentConfig; summary: RunSummary }[]>();
  for (const r of runs) {
    if (r.config.env.name !== env) continue;
    const key = `${r.config.env.seed}@${r.config.env.misleadingSkillFraction}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const levels: TeacherLevel[] = [];
  for (const group of groups.values()) {
    const scores = group.map((r) => r.summary.teacherPerformance).filter((x): x is number => typeof x === 'number');
    if (scores.length === 0) continue;
    const retire = group.filter((r) => r.config.student.schedule === 'adaptive');
    const steps = retire.map((r) => r.summary.gate.triggerStep).filter((s): s is number => s !== null);
    const first = group[0]!.config.env;
    levels.push({
      world: first.seed,
      misleadingFraction: first.misleadingSkillFraction,
      teacherSuccess: scores.reduce((a, b) => a + b, 0) / scores.length,
      retireRuns: retire.length,
      retired: steps.length,
      triggerSteps: steps.length ? [Math.min(...steps), Math.max(...steps)] : null,
    });
  }
  return levels.sort(byWorldAndLevel);
}

/** An earlier page's cells file; a cell written before worlds were a factor is in the presets' world. */
function readCellsFile(file: string): DoseResponseCells {
  const parsed = withFsErrors(file, 'reading --cells', () => JSON.parse(readFileSync(file, 'utf8')) as unknown);
  const d = parsed as Partial<DoseResponseCells>;
  if (!d || typeof d !== 'object' || !Array.isArray(d.cells))
    throw new UserError(`--cells ${file}: expected a dose–response cells file (an object with "cells": [...])`);
  return d as DoseResponseCells;
}

/**
 * The cells of one contrast: an earlier file's, with the seeds the run folders measure added to them (a seed both
 * measured takes the folders' difference), and the folders' cells the earlier files lack.
 */
function contrastCells(
  runs: readonly MapRun[],
  arms: CellArms,
  env: string,
  earlier: readonly (readonly HelpsCell[])[],
): HelpsCell[] {
  const measured = new Map(
    runCells(runs, arms)
      .filter((c) => c.env === env)
      .map((c) => [cellKey(c), c]),
  );
  const before = earlier.flat().filter((c) => c.env === env);
  const merged = before.map((c) => {
    const again = measured.get(cellKey(c));
    measured.delete(cellKey(c));
    return again === undefined ? c : mergeSeeds(c, again);
  });
  return [...merged, ...measured.values()];
}

export async function doseResponse(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    dir: { type: 'string', multiple: true },
    cells: { type: 'string', multiple: true },
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
  const dirs = values.dir ?? [];
  const cellFiles = values.cells ?? [];
  for (const d of dirs) refuseBlankPaths({ dir: d });
  for (const f of cellFiles) refuseBlankPaths({ cells: f });
  refuseBlankPaths({ out: values.out, intro: values.intro });
  if ((dirs.length === 0 && cellFiles.length === 0) || !values.env)
    throw new UserError(`--env and at least one --dir or --cells are required\n${USAGE}`);
  const env = values.env;
  const runs = dirs.flatMap((d) => completedRuns(d));
  const mapRuns = runs.map(mapRun);
  const earlier = cellFiles.map(readCellsFile);
  const cells = contrastCells(
    mapRuns,
    MAP_ARMS,
    env,
    earlier.map((d) => d.cells),
  );
  // the competence-only gate, where the sweeps ran it as a third arm
  const competenceOnly: CompetenceOnlyCells = {
    vsOpd: contrastCells(
      mapRuns,
      { treatment: 'competence-only', control: 'never' },
      env,
      earlier.map((d) => d.competenceOnly?.vsOpd ?? []),
    ),
    adaptiveVs: contrastCells(
      mapRuns,
      { treatment: 'adaptive', control: 'competence-only' },
      env,
      earlier.map((d) => d.competenceOnly?.adaptiveVs ?? []),
    ),
  };
  const third = competenceOnly.vsOpd.length + competenceOnly.adaptiveVs.length > 0;
  if (cells.length === 0)
    throw new UserError(
      `no RetireOPD and OPD-throughout runs of env ${env} pair on a seed in ${[...dirs, ...cellFiles].join(', ')}`,
    );
  const fromRuns = teacherLevels(runs, env);
  const seen = new Set(fromRuns.map((t) => `${t.world}@${t.misleadingFraction}`));
  const teachers = [
    ...earlier.flatMap((d) => d.teachers ?? []).filter((t) => !seen.has(`${t.world}@${t.misleadingFraction}`)),
    ...fromRuns,
  ].sort(byWorldAndLevel);
  const intro = values.intro
    ? withFsErrors(values.intro, 'reading --intro', () => readFileSync(values.intro!, 'utf8'))
    : '';
  const commit = currentCommit();
  const date = new Date().toISOString().slice(0, 10);
  const page = doseResponsePage(cells, {
    title: values.title ?? `RetireOPD − OPD throughout by teacher error level, ${env}`,
    env,
    intro,
    command: ['node --import tsx cli/doseResponse.ts', ...argv.map(shellWord)].join(' '),
    commit,
    date,
    teachers,
    ...(third ? { competenceOnly } : {}),
  });
  const out = values.out ?? join(dirs[0] ?? '.', 'dose-response.md');
  const json = out.replace(/\.md$/, '') + '.json';
  // the cells as the tab's map ships them (cli/outcomeFiles.ts): their source is this page, no stored run ids
  const source = relative(process.cwd(), out).split(sep).join('/');
  const ship = (cs: readonly HelpsCell[]) =>
    cs
      .map((c) => ({ ...c, source, note: 'paired by seed, from this page’s sweeps', runIds: [] }))
      .sort(byWorldAndLevel);
  const shipped: DoseResponseCells = {
    page: source,
    commit,
    date,
    cells: ship(cells),
    teachers,
    ...(third
      ? { competenceOnly: { vsOpd: ship(competenceOnly.vsOpd), adaptiveVs: ship(competenceOnly.adaptiveVs) } }
      : {}),
  };
  withFsErrors(out, 'writing the page', () => writeFileSync(out, `${page}\n`));
  withFsErrors(json, 'writing the cells', () => writeFileSync(json, `${JSON.stringify(shipped, null, 2)}\n`));
  io.stdout(`${page}\n\npage: ${out}\ncells: ${json}\n`);
  return 0;
}

if (isEntryPoint(import.meta.url)) runCliMain('doseResponse', doseResponse);
