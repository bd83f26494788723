import { describe, expect, it } from 'vitest';
import { createImportWorkerHandler } from '../../src/app/worker/importWorkerHandler';
import type { ImportFile, ImportWorkerResponse } from '../../src/app/runs/importWorkerProtocol';
import { importRunFolders } from '../../src/app/runs/runFolderFiles';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { CONFIG, summary } from './runFixtures';

/** A blob in parts of 1,000 bytes (Node's Blob.stream() yields one chunk per part): lines cross chunk boundaries. */
function chunked(text: string): Blob {
  const bytes = new TextEncoder().encode(text);
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for (let at = 0; at < bytes.length; at += 1000) parts.push(bytes.slice(at, at + 1000));
  return new Blob(parts);
}

function setup() {
  const repo = new MemoryRunRepository();
  const posted: ImportWorkerResponse[] = [];
  let t = 0;
  const handler = createImportWorkerHandler(
    (m) => posted.push(m),
    async () => repo,
    () => (t += 1),
    () => 42,
  );
  return { repo, posted, handler };
}

const config = JSON.stringify(CONFIG);
const studentLines = Array.from(
  { length: 12_000 },
  (_, i) => `{"step":${i + 1},"val/success_rate":${i % 7 === 0 ? 'null' : 0.5}}`,
);

describe('the import worker’s logic', () => {
  it('streams a large metrics.jsonl into the store in batches and stores what the whole-text import stores', async () => {
    const { repo, posted, handler } = setup();
    const texts = {
      'r/config.json': config,
      'r/summary.json': JSON.stringify(summary('completed', 10)),
      'r/metrics.jsonl': `${studentLines.join('\r\n')}\r\n`,
      'r/sft.jsonl': '{"step":1,"sft/loss":2}\n\n{"step":2,"sft/loss":1.5}\n',
      'r/events.jsonl': '{"type":"warning","message":"w","stage":"sft","step":2}\n',
    };
    const files: ImportFile[] = Object.entries(texts).map(([path, t]) => ({ path, blob: chunked(t) }));
    await handler.handle({ type: 'import', id: 1, files });
    const done = posted.at(-1);
    expect(done?.type).toBe('done');
    const [expected] = importRunFolders(
      Object.entries(texts).map(([path, text]) => ({ path, text })),
      42,
    );
    // run ids end in a random part: compare with the id the worker gave
    expect(done).toEqual({ type: 'done', id: 1, runIds: [expect.any(String)] });
    const runId = done?.type === 'done' ? done.runIds[0]! : '';
    const withId = <T extends { runId: string }>(rows: T[]) => rows.map((r) => ({ ...r, runId }));
    expect(await repo.getRun(runId)).toEqual({ ...expected!.record, id: runId });
    expect((await repo.getRun(runId))?.step).toBe(12_000);
    expect(await repo.metrics(runId)).toEqual(
      withId(expected!.metrics).sort((a, b) => (a.stage === b.stage ? a.step - b.step : a.stage < b.stage ? -1 : 1)),
    );
    expect((await repo.metrics(runId, 'student'))[7]?.line['val/success_rate']).toBeNaN();
    expect(await repo.events(runId)).toEqual(withId(expected!.events));
    const total = files.reduce((n, f) => n + f.blob.size, 0);
    expect(posted.at(-2)).toEqual({ type: 'progress', id: 1, bytesRead: total, totalBytes: total });
  });

  it('names FILE:LINE of a bad line and leaves nothing stored', async () => {
    const { repo, posted, handler } = setup();
    const bad = `${studentLines.slice(0, 9000).join('\n')}\n{oops\n`;
    await handler.handle({
      type: 'import',
      id: 2,
      files: [
        { path: 'r/config.json', blob: new Blob([config]) },
        { path: 'r/metrics.jsonl', blob: chunked(bad) },
      ],
    });
    const out = posted.at(-1);
    expect(out?.type).toBe('error');
    expect(out?.type === 'error' && out.error.message).toMatch(/^r\/metrics\.jsonl:9001: not valid JSON/);
    expect(await repo.listRuns()).toEqual([]);
  });

  it('refuses a run whose summary.json contradicts its streamed metrics.jsonl, and one folder with two metrics.jsonl', async () => {
    const { repo, posted, handler } = setup();
    const s = { ...summary('completed', 10), validation: { best: 0.75, last: 0.75 } };
    await handler.handle({
      type: 'import',
      id: 3,
      files: [
        { path: 'r/config.json', blob: new Blob([config]) },
        { path: 'r/summary.json', blob: new Blob([JSON.stringify(s)]) },
        { path: 'r/metrics.jsonl', blob: chunked(`${studentLines.join('\n')}\n`) },
      ],
    });
    expect(posted.at(-1)).toEqual({
      type: 'error',
      id: 3,
      error: {
        name: 'ImportError',
        message:
          "r/summary.json contradicts its metrics.jsonl: last validation score 0.75, metrics.jsonl's 0.5 (not this run's)",
      },
    });
    await handler.handle({
      type: 'import',
      id: 4,
      files: [
        { path: 'r/config.json', blob: new Blob([config]) },
        { path: 'r/metrics.jsonl', blob: new Blob(['{"step":1}\n']) },
        { path: 'r/metrics.jsonl', blob: new Blob(['{"step":2}\n']) },
      ],
    });
    const twice = posted.at(-1);
    expect(twice?.type === 'error' && twice.error.message).toMatch(/^r: two metrics\.jsonl files/);
    expect(await repo.listRuns()).toEqual([]);
  });
});

describe('files sent in slices', () => {
  it('imports every slice sent under an id with its last one, as one import of all the files', async () => {
    const { repo, posted, handler } = setup();
    const folders = ['a', 'b', 'c'].map((dir, i) => ({
      path: `sweep/${dir}/config.json`,
      blob: new Blob([JSON.stringify({ ...CONFIG, seed: 70 + i })]),
    }));
    await handler.handle({ type: 'files', id: 5, files: folders.slice(0, 1) });
    await handler.handle({ type: 'files', id: 5, files: folders.slice(1, 2) });
    expect(posted).toEqual([]);
    await handler.handle({ type: 'import', id: 5, files: folders.slice(2) });
    const done = posted.at(-1);
    expect(done).toEqual({ type: 'done', id: 5, runIds: [expect.any(String), expect.any(String), expect.any(String)] });
    expect((await repo.listRuns()).map((r) => r.seed).sort()).toEqual([70, 71, 72]);
    // a later import under another id starts from nothing
    await handler.handle({ type: 'import', id: 6, files: [] });
    expect(posted.at(-1)).toMatchObject({ type: 'error', id: 6 });
  });
});
