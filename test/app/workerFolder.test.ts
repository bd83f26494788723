// Where src/app's code runs. src/app/worker/ holds what runs only inside a Web Worker: the workers' entry points and
// what only they import. The page (main.tsx's import graph) imports from worker/ only the training worker's messages
// it shares with the page (protocol.ts, runControl.ts, wasmRuntimeChannel.ts). Modules outside worker/ may run on
// both sides (the run repository, run folder files, the replay model); what a worker runs imports no view (.tsx)
// and no React. The page starts every worker from a file in worker/.
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, reachableFrom, sourceFiles, workersStartedBy } from '../support/importGraph';

const root = join(__dirname, '../..');
const appDir = join(root, 'src', 'app');
const workerDir = join(appDir, 'worker');
const SHARED_WITH_PAGE = ['protocol.ts', 'runControl.ts', 'wasmRuntimeChannel.ts'].map((n) => join(workerDir, n));
const UI_PACKAGES = /^(react|react-dom|recharts|zustand)(\/|$)(?!vanilla)/;

const name = (file: string): string => relative(root, file).split(sep).join('/');
const inWorkerFolder = (file: string): boolean => file.startsWith(workerDir + sep);

/** The files that break the folder rule, given the page's graph and each worker entry's graph. */
export function folderRuleBreaks(
  page: ReadonlySet<string>,
  workers: ReadonlyMap<string, ReadonlySet<string>>,
): string[] {
  const out: string[] = [];
  for (const file of page) {
    if (inWorkerFolder(file) && !SHARED_WITH_PAGE.includes(file))
      out.push(`${name(file)}: in worker/ yet the page imports it`);
  }
  const runInWorkers = new Set([...workers.values()].flatMap((graph) => [...graph]));
  for (const file of sourceFiles(workerDir)) {
    if (!runInWorkers.has(file)) out.push(`${name(file)}: in worker/ yet no worker imports it`);
  }
  for (const [entry, graph] of workers) {
    if (!inWorkerFolder(entry)) out.push(`${name(entry)}: a worker entry outside worker/`);
    for (const file of graph) {
      if (file.endsWith('.tsx')) out.push(`${name(file)}: a view in the worker ${name(entry)}`);
      const ui = importsOf(file).packages.filter((p) => UI_PACKAGES.test(p));
      if (ui.length > 0) out.push(`${name(file)}: imports ${ui.join(', ')} in the worker ${name(entry)}`);
    }
  }
  return [...new Set(out)].sort();
}

describe('src/app/worker holds what runs in a worker', () => {
  const page = reachableFrom(join(appDir, 'main.tsx'));
  const entries = [...new Set([...page].flatMap((file) => workersStartedBy(file)))];
  const workers = new Map(entries.map((entry) => [entry, reachableFrom(entry)]));

  it('the page starts the training, replay, import, calibration and checkpoint-probe workers', () => {
    expect(entries.map(name)).toEqual(
      expect.arrayContaining(
        ['trainingWorker', 'replayWorker', 'importWorker', 'calibrationWorker', 'checkpointProbeWorker'].map(
          (n) => `src/app/worker/${n}.ts`,
        ),
      ),
    );
  });

  it('the check names a page import of worker code, worker code no worker imports, and a view in a worker', () => {
    const handler = join(workerDir, 'workerHandler.ts');
    const view = join(appDir, 'train', 'TrainView.tsx');
    const entry = join(workerDir, 'trainingWorker.ts');
    const breaks = folderRuleBreaks(
      new Set([handler, SHARED_WITH_PAGE[0] as string]),
      new Map([[entry, new Set([entry, view])]]),
    );
    expect(breaks).toContain('src/app/worker/workerHandler.ts: in worker/ yet the page imports it');
    expect(breaks).toContain('src/app/worker/workerHandler.ts: in worker/ yet no worker imports it');
    expect(breaks).toContain('src/app/train/TrainView.tsx: a view in the worker src/app/worker/trainingWorker.ts');
    expect(breaks.join('\n')).toContain('src/app/train/TrainView.tsx: imports react');
    expect(breaks).not.toContain('src/app/worker/protocol.ts: in worker/ yet the page imports it');
  });

  it('the page imports only the shared messages from worker/, and every file there runs in a worker and no view or React', () => {
    expect(page.size).toBeGreaterThan(50);
    expect(folderRuleBreaks(page, workers)).toEqual([]);
  });
});
