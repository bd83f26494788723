// The page's side of the checkpoint probe worker (worker/checkpointProbeWorker.ts): one worker, started on the
// first request and kept for the next ones; each request is answered once, by id.
import type { ExperimentConfig } from '../../core/experiment/config';
import type { ProbeRequest } from '../../engine/trajectoryProbe';
import type { CheckpointProbeRequest, CheckpointProbeResponse } from './checkpointProbeProtocol';
import type { ProbeAnswer } from './probeClient';

let worker: Worker | null = null;
let nextId = 1;
const waiting = new Map<number, { resolve: (a: ProbeAnswer) => void; reject: (e: Error) => void }>();

function probeWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(new URL('../worker/checkpointProbeWorker.ts', import.meta.url), { type: 'module' });
  w.onmessage = (e: MessageEvent<CheckpointProbeResponse>) => {
    const m = e.data;
    const p = waiting.get(m.id);
    if (!p) return;
    waiting.delete(m.id);
    if (m.type === 'probe-result') p.resolve({ episodes: m.episodes, stage: m.stage, step: m.step });
    else p.reject(new Error(m.message));
  };
  w.onerror = (e) => {
    e.preventDefault();
    for (const p of waiting.values()) p.reject(new Error(e.message || 'the checkpoint probe worker failed to load'));
    waiting.clear();
    worker = null;
  };
  worker = w;
  return w;
}

/** Sample checkpoint `files` of a run with `config` (`where` names it in errors). */
export function probeRecordedCheckpoint(
  config: ExperimentConfig,
  files: ReadonlyMap<string, Uint8Array>,
  where: string,
  request: ProbeRequest,
): Promise<ProbeAnswer> {
  const id = nextId++;
  return new Promise<ProbeAnswer>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    probeWorker().postMessage({
      type: 'probe-checkpoint',
      id,
      config,
      files: [...files],
      where,
      request,
    } satisfies CheckpointProbeRequest);
  });
}
