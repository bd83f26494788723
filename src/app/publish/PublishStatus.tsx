// The lab's footer line: the version (package.json's and the build's id), whether threads are possible — and if not,
// why —, how many threads the wasm runs actually use and why (threadUse.ts),
// whether the page works offline, and "update available — reload" when a new version waits (serviceWorkerClient.ts).
import { useStore } from 'zustand';
import type { ThreadCalibration } from '../../core/threadChoice';
import { VERSION_LABEL } from './buildInfo';
import { applyUpdate, publishStore, reloadForIsolation } from './serviceWorkerClient';
import { threadUseText } from './threadUse';
import './publish.css';

/** `threads`: the start-up thread calibration (null until it finishes), from the shell; `cores`: logical cores. */
export function PublishStatus({ threads, cores }: { threads: ThreadCalibration | null; cores: number }) {
  const { isolation, offline, updateReady } = useStore(publishStore);
  return (
    <footer className="publish-status">
      <span data-testid="app-version">RetireLab {VERSION_LABEL}</span>
      <span data-testid="isolation-status" data-state={isolation.state}>
        {isolation.text}
        {isolation.state === 'pending' && (
          <button type="button" onClick={reloadForIsolation}>
            reload now
          </button>
        )}
      </span>
      {isolation.state === 'isolated' && <span data-testid="thread-use">{threadUseText(threads, cores)}</span>}
      {offline && (
        <span data-testid="offline-ready">
          works offline (cached in this browser; teachers and recordings once used)
        </span>
      )}
      {updateReady && (
        <span role="status" className="publish-update" data-testid="update-available">
          update available —{' '}
          <button type="button" onClick={applyUpdate} data-testid="update-reload">
            reload
          </button>{' '}
          (stored runs are kept)
        </span>
      )}
    </footer>
  );
}
