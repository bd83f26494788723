// The lab's shell: a header with the three views (overview, training, gate replay), chosen by the URL hash so a
// view can be linked to and reloaded. The shell loads offline (no CDN fonts, scripts or models).
import { useEffect, useSyncExternalStore } from 'react';
import { HelpsView } from './helps/HelpsView';
import { Overview } from './Overview';
import { PublishStatus } from './publish/PublishStatus';
import { ReplayView } from './replay/ReplayView';
import { startRunsOnce } from './runs/storedRuns';
import { splitHash } from './train/trainLink';
import { onThreadCalibration, threadCalibration } from './train/startupCalibration';
import { logicalCores } from './train/workerThreads';
import { trainForm } from './train/trainForm';
import { TrainView } from './train/TrainView';
import { MethodsView } from './teaching/MethodsView';
import { PresentationMode } from './teaching/PresentationMode';

const VIEWS = [
  { hash: '', label: 'Overview' },
  { hash: 'train', label: 'Train' },
  { hash: 'replay', label: 'Gate replay' },
  { hash: 'method', label: 'Method' },
  { hash: 'helps', label: 'Where it helps' },
] as const;
type ViewHash = (typeof VIEWS)[number]['hash'];

/** The view named before any `?query` (`#train?preset=smoke` is the Train view with a filled form). */
function currentView(): ViewHash {
  const h = splitHash(window.location.hash).view;
  return (VIEWS.find((v) => v.hash === h)?.hash ?? '') as ViewHash;
}

const subscribe = (onChange: () => void) => {
  const onHash = () => {
    // a pasted or clicked link fills the Train form (the form's own edits use replaceState: no event)
    trainForm.getState().applyLink(window.location.hash, null);
    onChange();
  };
  window.addEventListener('hashchange', onHash);
  return () => window.removeEventListener('hashchange', onHash);
};

export function App() {
  const view = useSyncExternalStore(subscribe, currentView);
  const calibration = useSyncExternalStore(onThreadCalibration, threadCalibration);
  // stored runs load (and an interrupted queue continues) whatever view the page opens on
  useEffect(() => startRunsOnce(), []);
  return (
    <main className="shell">
      <header>
        <PresentationMode />
        <h1>RetireLab</h1>
        <p className="tagline">
          Train small agent policies in this tab and watch three post-training methods for LLM agents work.
        </p>
        <nav aria-label="views">
          {VIEWS.map((v) => (
            <a key={v.hash} href={`#${v.hash}`} aria-current={view === v.hash ? 'page' : undefined}>
              {v.label}
            </a>
          ))}
        </nav>
      </header>
      {view === 'replay' ? (
        <ReplayView />
      ) : view === 'train' ? (
        <TrainView />
      ) : view === 'method' ? (
        <MethodsView />
      ) : view === 'helps' ? (
        <HelpsView />
      ) : (
        <Overview />
      )}
      <PublishStatus threads={calibration} cores={logicalCores} />
    </main>
  );
}
