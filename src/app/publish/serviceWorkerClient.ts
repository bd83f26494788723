// The page's side of the published lab's service worker (serviceWorker.ts): registers it from this bundled module
// (no inline script: the lab's content-security policy allows none), reloads the page once when the worker first
// takes control so that the page becomes cross-origin isolated (unless a run is going), and offers an update as
// "update available — reload". Only the production build registers it: the dev server sends COOP/COEP itself.
import { Workbox } from 'workbox-window';
import { createStore } from 'zustand/vanilla';
import { appRoot } from '../appRoot';
import { BUILT } from './buildInfo';
import { describeIsolation, registrationFailure, type IsolationFacts, type IsolationStatus } from './isolationStatus';

export interface PublishState {
  isolation: IsolationStatus;
  /** a service worker controls the page: it loads and trains offline */
  offline: boolean;
  /** a new version is installed and waits for the page's consent */
  updateReady: boolean;
}

/** sessionStorage key: set when the page reloaded to become isolated, so it never reloads in a loop */
const RELOADED_KEY = 'retirelab:isolation-reload';

const facts: IsolationFacts = {
  isolated: globalThis.crossOriginIsolated === true,
  published: BUILT,
  serviceWorkerApi: typeof navigator !== 'undefined' && 'serviceWorker' in navigator,
  secureContext: globalThis.isSecureContext === true,
  controlled: typeof navigator !== 'undefined' && navigator.serviceWorker?.controller != null,
  reloaded: readReloaded(),
  registrationError: null,
  serviceWorkersBlocked: false,
  busy: false,
};

function readReloaded(): boolean {
  try {
    return globalThis.sessionStorage?.getItem(RELOADED_KEY) === '1';
  } catch {
    return false;
  }
}

export const publishStore = createStore<PublishState>(() => ({
  isolation: describeIsolation(facts),
  offline: facts.controlled,
  updateReady: false,
}));

function update(change: Partial<IsolationFacts>): void {
  Object.assign(facts, change);
  publishStore.setState({ isolation: describeIsolation(facts), offline: facts.controlled });
}

let workbox: Workbox | null = null;
/** a new version is installed and waits (this page has not asked it to take over yet) */
let waiting = false;
let updating = false;

/**
 * Take the new version: the waiting one activates, takes control, and the page reloads on it; where it already took
 * over (from another tab), just reload. Stored runs are kept either way.
 */
export function applyUpdate(): void {
  updating = true;
  if (workbox && waiting) workbox.messageSkipWaiting();
  else location.reload();
}

/** Reload now to become isolated (the button shown while a run kept the page from reloading by itself). */
export function reloadForIsolation(): void {
  facts.reloaded = true;
  try {
    globalThis.sessionStorage?.setItem(RELOADED_KEY, '1');
  } catch {
    // no session storage: the loop guard is lost, the reload still happens once per click
  }
  location.reload();
}

/**
 * Register the service worker (production build only). `busy()`: whether a run is going — the page then asks for
 * the isolating reload instead of doing it.
 */
export function startServiceWorker(busy: () => boolean): void {
  if (facts.isolated) {
    try {
      globalThis.sessionStorage?.removeItem(RELOADED_KEY);
    } catch {
      // nothing to clear
    }
  }
  if (!facts.published || !facts.serviceWorkerApi || !facts.secureContext) return;
  /** Reload once to become isolated, unless a run is going or the page already did (never in a loop). */
  const isolateWhenControlled = () => {
    update({ controlled: navigator.serviceWorker.controller != null, busy: busy() });
    if (!facts.isolated && facts.controlled && !facts.reloaded && !facts.busy) reloadForIsolation();
  };
  const onControllerChange = () => {
    const wasControlled = facts.controlled;
    if (updating) location.reload();
    // a new version took over from another tab: this page's lazily loaded scripts may be gone from the host
    else if (wasControlled) {
      waiting = false;
      publishStore.setState({ updateReady: true });
    } else isolateWhenControlled();
  };
  navigator.serviceWorker.addEventListener('controllerchange', onControllerChange);
  const wb = new Workbox(new URL('serviceWorker.js', appRoot()).href);
  workbox = wb;
  wb.addEventListener('waiting', () => {
    waiting = true;
    publishStore.setState({ updateReady: true });
  });
  wb.addEventListener('redundant', (event) => {
    if (!event.isUpdate && !facts.controlled) update({ registrationError: 'it failed to install' });
  });
  wb.register()
    .then(async () => {
      // a hard reload bypasses an active worker: claimed only once it is asked to
      const registration = await navigator.serviceWorker.ready;
      if (registration.active && !navigator.serviceWorker.controller && !facts.isolated) {
        update({ busy: busy() });
        if (!facts.reloaded && !facts.busy) reloadForIsolation();
      } else isolateWhenControlled();
    })
    .catch((e: unknown) => {
      // a browser that blocks service workers gets a plain line, never the TypeError its refusal caused
      const failure = registrationFailure(e);
      update(failure.blocked ? { serviceWorkersBlocked: true } : { registrationError: failure.message });
    });
}
