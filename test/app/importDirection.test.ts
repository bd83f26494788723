// src/app imports go one way. The order, bottom first (each file may import its own layer and the ones before it):
//   the shared root modules (Field, Select, appRoot, …) < files/ < charts/ < publish/ < worker/'s protocol with the
//   page (protocol.ts, runControl.ts, wasmRuntimeChannel.ts) < the features' modules (.ts: stores, models, clients,
//   protocols of the smaller workers), replay < train < runs < demo < teaching < helps < the features' views (.tsx),
//   demo < teaching < replay < runs < train < helps < the shell (App.tsx, main.tsx, Overview.tsx) < worker/'s programs
//   (entries and handlers: the page starts them from a URL, nothing imports them).
// This test checks every resolved import (type-only and dynamic ones included); the lint rule in eslint.config.js
// checks the same order by file naming as you type.
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from '../support/importGraph';

const root = resolve(__dirname, '../..');
const appDir = join(root, 'src', 'app');

const SHELL = ['App.tsx', 'main.tsx', 'Overview.tsx'];
const LIBRARIES = ['files', 'charts', 'publish'];
const WORKER_PROTOCOL = ['protocol.ts', 'runControl.ts', 'wasmRuntimeChannel.ts'];
const MODULE_ORDER = ['replay', 'train', 'runs', 'demo', 'teaching', 'helps'];
const VIEW_ORDER = ['demo', 'teaching', 'replay', 'runs', 'train', 'helps'];

/** The layers, bottom first. */
export const APP_LAYERS = [
  'shared',
  ...LIBRARIES,
  'worker protocol',
  ...MODULE_ORDER.map((f) => `${f} modules`),
  ...VIEW_ORDER.map((f) => `${f} views`),
  'shell',
  'worker programs',
];

/** The layer of a file, given its path under src/app with '/' separators; null for a folder outside the order. */
export function appLayer(path: string): string | null {
  const parts = path.split('/');
  const name = parts[parts.length - 1] ?? '';
  if (parts.length === 1) return SHELL.includes(name) ? 'shell' : 'shared';
  const folder = parts[0] ?? '';
  if (LIBRARIES.includes(folder)) return folder;
  if (folder === 'worker')
    return parts.length === 2 && WORKER_PROTOCOL.includes(name) ? 'worker protocol' : 'worker programs';
  if (!MODULE_ORDER.includes(folder)) return null;
  return name.endsWith('.tsx') ? `${folder} views` : `${folder} modules`;
}

/** Each import that climbs back up the order (its target's layer above its file's), as "from (layer) -> to (layer)". */
export function backArrows(edges: readonly (readonly [string, string])[]): string[] {
  const rank = (path: string): number => APP_LAYERS.indexOf(appLayer(path) ?? '');
  return edges
    .filter(([from, to]) => rank(to) > rank(from))
    .map(([from, to]) => `${from} (${appLayer(from)}) -> ${to} (${appLayer(to)})`);
}

/** Every import between two files of src/app, as paths under src/app ('/' separators). */
function appImports(): [string, string][] {
  const name = (file: string): string => relative(appDir, file).split(sep).join('/');
  return sourceFiles(appDir).flatMap((file) =>
    importsOf(file)
      .files.filter((target) => target.startsWith(appDir + sep))
      .map((target): [string, string] => [name(file), name(target)]),
  );
}

describe('src/app import direction', () => {
  it('the checker reports an import that climbs back up the order, and none that goes down (so the real check can fail)', () => {
    expect(
      backArrows([
        ['runs/storedRunsStore.ts', 'train/liveRunState.ts'], // modules: runs above train
        ['train/TrainView.tsx', 'runs/RunsSection.tsx'], // views: train above runs
        ['teaching/tourPlayback.ts', 'demo/PlaybackBar.tsx'], // a module imports no view
        ['train/liveRun.ts', 'runs/storedRuns.ts'], // train's modules sit below runs'
        ['charts/chartExport.ts', 'runs/download.ts'], // a library imports no feature
        ['runs/runRecord.ts', 'worker/protocol.ts'], // the protocol is below the features
        ['train/liveRun.ts', 'worker/trainingWorker.ts'], // a worker program is imported by nothing
        ['Field.tsx', 'App.tsx'],
      ]),
    ).toEqual([
      'teaching/tourPlayback.ts (teaching modules) -> demo/PlaybackBar.tsx (demo views)',
      'train/liveRun.ts (train modules) -> runs/storedRuns.ts (runs modules)',
      'charts/chartExport.ts (charts) -> runs/download.ts (runs modules)',
      'train/liveRun.ts (train modules) -> worker/trainingWorker.ts (worker programs)',
      'Field.tsx (shared) -> App.tsx (shell)',
    ]);
  });

  it('every file of src/app sits in a layer of the order (a new folder is placed in it first)', () => {
    const files = sourceFiles(appDir).map((f) => relative(appDir, f).split(sep).join('/'));
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => appLayer(f) === null)).toEqual([]);
  });

  it('no import in src/app climbs back up the order (type-only and dynamic imports included)', () => {
    const edges = appImports();
    expect(edges.length).toBeGreaterThan(200);
    expect(backArrows(edges)).toEqual([]);
  });

  it('the lint rule rejects a back-arrow by name and accepts the same import the other way', async () => {
    const config = (await import(pathToFileURL(join(root, 'eslint.config.js')).href)) as {
      appImportBlocks: Linter.Config[];
    };
    const linter = new Linter({ cwd: root });
    const lint = (file: string, code: string): string[] =>
      linter.verify(code, config.appImportBlocks, { filename: join(root, file) }).map((m) => m.message);
    expect(lint('src/app/runs/runQueue.ts', "import { x } from '../train/TrainView';\n")).toEqual([
      expect.stringContaining('runs/ modules must not import train/ views'),
    ]);
    expect(lint('src/app/train/liveRun.ts', "import { x } from '../runs/storedRuns';\n")).toEqual([
      expect.stringContaining('train/ modules must not import runs/ modules'),
    ]);
    expect(lint('src/app/train/liveRunStore.ts', "import { x } from './TrainView';\n")).toEqual([
      expect.stringContaining('train/ modules must not import train/ views'),
    ]);
    expect(lint('src/app/runs/storedRuns.ts', "import { x } from '../worker/trainingWorker';\n")).toEqual([
      expect.stringContaining("must not import worker/'s programs"),
    ]);
    expect(
      lint(
        'src/app/train/TrainView.tsx',
        "import { x } from '../runs/RunsSection';\nimport { y } from '../worker/protocol';\n",
      ),
    ).toEqual([]);
  });
});
