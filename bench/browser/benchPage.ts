// The bench page: window.retireBench.run(request) runs one backend's workloads in a fresh module worker and
// resolves with its JSON result (progress lines go to the console, which cli/benchBrowser.ts forwards to stderr).
import type { BenchReply, BenchRequest } from './protocol';

function run(request: BenchRequest): Promise<Record<string, unknown>> {
  const worker = new Worker(new URL('./benchWorker.ts', import.meta.url), { type: 'module', name: 'bench' });
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<BenchReply>) => {
      const reply = event.data;
      if (reply.type === 'progress') console.log(`[bench ${request.backend}] ${reply.message}`);
      else {
        worker.terminate();
        if (reply.type === 'result') resolve(reply.result);
        else reject(new Error(reply.message));
      }
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(`bench worker failed: ${event.message || 'script error (see the console)'}`));
    };
    worker.postMessage(request);
  });
}

const page = {
  run,
  ready: true,
  crossOriginIsolated: globalThis.crossOriginIsolated,
  hardwareConcurrency: navigator.hardwareConcurrency,
  userAgent: navigator.userAgent,
};
(globalThis as unknown as { retireBench: typeof page }).retireBench = page;
