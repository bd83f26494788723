// `node --import tsx cli/outcomeFiles.ts`: the app's held-out result files, generated from the committed protocol
// pages (docs/outcomes/protocol-*.md) so that no number the app shows about them is typed by hand:
//   public/demo/seed-spread.json         where the recorded seed (DEMO_SEED) sits among the reporting seeds
//   public/outcomes/where-it-helps.json  RetireOPD − OPD throughout per environment × misleading fraction (with
//                                        the cells of docs/outcomes/dose-response-*.json, cli/doseResponse.ts)
// `npm run record-demo` writes them too; test/cli/outcomeFiles.test.ts fails when a shipped file is stale.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEMO_FOLDER, DEMO_SEED } from '../src/core/experiment/demoRecording';
import type { DoseResponseCells } from '../src/core/experiment/doseResponse';
import { bestCells, HELPS_MAP_FILE, pageCells, worldPooledCells, type HelpsMap } from '../src/core/experiment/helpsMap';
import { parseOutcomePage, type OutcomePage } from '../src/core/experiment/outcomePage';
import { SEED_SPREAD_FILE, seedSpreadOf } from '../src/core/experiment/seedSpread';
import { isEntryPoint, runCliMain, type CliIo } from './cliMain';
import { readPreset, ROOT } from './presetFiles';

const OUTCOMES = 'docs/outcomes';
/** The lesson's environment: the recorded arms are the shell presets. */
const DEMO_ENV = 'shell';

/** Each shipped file's path (from the repository root) and its text. */
export function outcomeFiles(root: string = ROOT): { path: string; text: string }[] {
  const pages: { file: string; page: OutcomePage }[] = readdirSync(join(root, OUTCOMES))
    .filter((f) => /^protocol-.*\.md$/.test(f))
    .sort()
    .map((f) => {
      const file = `${OUTCOMES}/${f}`;
      return { file, page: parseOutcomePage(readFileSync(join(root, file), 'utf8'), file) };
    });

  const demo = pages
    .filter((p) => p.page.env === DEMO_ENV && p.page.paired.some((l) => l.arm === 'OPD throughout'))
    .sort((a, b) => b.page.paired[0]!.n - a.page.paired[0]!.n)[0];
  if (!demo) throw new Error(`${OUTCOMES}: no ${DEMO_ENV} page with a "RetireOPD − OPD throughout" line`);
  const spread = seedSpreadOf(demo.page, demo.file, DEMO_SEED);

  // the dose–response sweeps' cells, committed beside their pages (cli/doseResponse.ts)
  const doses: DoseResponseCells[] = readdirSync(join(root, OUTCOMES))
    .filter((f) => /^dose-response-.*\.json$/.test(f))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(root, OUTCOMES, f), 'utf8')) as DoseResponseCells);

  // a protocol page runs its environment's retire- preset: its misleading fraction and its world (env.seed)
  const presetEnv = (env: string) => readPreset(`retire-${env}`).config.env;
  const worldCells = bestCells([
    ...pages.flatMap((p) =>
      pageCells(p.page, p.file, presetEnv(p.page.env).misleadingSkillFraction, presetEnv(p.page.env).seed),
    ),
    ...doses.flatMap((d) => d.cells),
  ]);
  // each dose–response page's cells pooled over the task worlds it measured (a row of their own in the map), from
  // the page's own cells so that the map's pooled row and the page's "over worlds" column agree
  const pooled = doses.flatMap((d) => worldPooledCells(d.cells, d.page));
  const map: HelpsMap = {
    comparison: 'RetireOPD − OPD throughout',
    unit: 'points',
    level: 0.95,
    pages: [
      ...pages.map((p) => ({ file: p.file, commit: p.page.commit, date: p.page.date })),
      ...doses.map((d) => ({ file: d.page, commit: d.commit, date: d.date })),
    ],
    cells: [...worldCells, ...pooled],
  };
  return [
    { path: `public/${DEMO_FOLDER}/${SEED_SPREAD_FILE}`, text: JSON.stringify(spread, null, 2) + '\n' },
    { path: `public/${HELPS_MAP_FILE}`, text: JSON.stringify(map, null, 2) + '\n' },
  ];
}

export function writeOutcomeFiles(io: CliIo, root: string = ROOT): void {
  for (const f of outcomeFiles(root)) {
    mkdirSync(dirname(join(root, f.path)), { recursive: true });
    writeFileSync(join(root, f.path), f.text);
    io.stdout(`wrote ${f.path}\n`);
  }
}

export function outcomeFilesMain(_argv: string[], io: CliIo): Promise<number> {
  writeOutcomeFiles(io);
  return Promise.resolve(0);
}

if (isEntryPoint(import.meta.url)) runCliMain('outcome-files', outcomeFilesMain);
