// The lab's shell: a header with the three views (overview, training, gate replay), chosen by the URL hash so a
// view can be linked to and reloaded. The shell loads offline (no CDN fonts, scripts or models).
import { useSyncExternalStore } from 'react';
import { Overview } from './Overview';
import { ReplayView } from './replay/ReplayView';
import { TrainView } from './train/TrainView';

const VIEWS = [
  { hash: '', label: 'Overview' },
  { hash: 'train', label: 'Train' },
  { hash: 'replay', label: 'Gate replay' },
] as const;
type ViewHash = (typeof VIEWS)[number]['hash'];

function currentView(): ViewHash {
  const h = window.location.hash.replace(/^#\/?/, '');
  return (VIEWS.find((v) => v.hash === h)?.hash ?? '') as ViewHash;
}

const subscribe = (onChange: () => void) => {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
};

export function App() {
  const view = useSyncExternalStore(subscribe, currentView);
  return (
    <main className="shell">
      <header>
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
      {view === 'replay' ? <ReplayView /> : view === 'train' ? <TrainView /> : <Overview />}
    </main>
  );
}
