import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { startServiceWorker } from './publish/serviceWorkerClient';
import { queueStore } from './runs/storedRuns';
import { runStore } from './train/liveRun';
import { isActive } from './train/liveRunState';
import './app.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// the published build's service worker (offline use, cross-origin isolation where the host sends no headers)
startServiceWorker(() => isActive(runStore.getState().status) || queueStore.getState().activeId !== null);
