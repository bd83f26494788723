// The lab's footer line: the version (package.json's and the build's id), whether threads are on — and if not, why —,
// whether the page works offline, and "update available — reload" when a new version waits (serviceWorkerClient.ts).
import { useStore } from 'zustand';
import { VERSION_LABEL } from './buildInfo';
import { applyUpdate, publishStore, reloadForIsolation } from './serviceWorkerClient';
import './publish.css';

export function PublishStatus() {
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
      {offline && <span data-testid="offline-ready">works offline (cached in this browser)</span>}
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
