// Whether the page can run threads (wasm's threaded build, the Step button's shared control flags), and why not, in
// words a teacher can act on. Threads need a cross-origin isolated page: COOP/COEP headers from the server (the dev
// and preview servers, a host that allows them) or from the published build's service worker (serviceWorker.ts),
// which needs a secure context (https or localhost) and one reload after it first takes control.

export interface IsolationFacts {
  /** globalThis.crossOriginIsolated */
  isolated: boolean;
  /** the published build (it registers the service worker); false in the dev server */
  published: boolean;
  /** navigator.serviceWorker exists (not in a private window of some browsers, nor outside a secure context) */
  serviceWorkerApi: boolean;
  /** globalThis.isSecureContext */
  secureContext: boolean;
  /** a service worker controls this page */
  controlled: boolean;
  /** the page already reloaded once to become isolated (this tab, this session) */
  reloaded: boolean;
  /** why the service worker did not register, if it failed (registrationFailure's words) */
  registrationError: string | null;
  /** the browser refused to register any service worker (a setting, a policy, an extension, automation) */
  serviceWorkersBlocked: boolean;
  /** a run is going: the page does not reload under it */
  busy: boolean;
}

export type IsolationState =
  /** threads possible (how many the runs use is the thread calibration's: threadUse.ts) */
  | 'isolated'
  /** the page will reload (or asks to) once the service worker controls it */
  | 'pending'
  /** single-threaded for good, here: `text` says why */
  | 'impossible';

export interface IsolationStatus {
  state: IsolationState;
  /** one line for the page */
  text: string;
}

const SINGLE = 'single-threaded (no shared memory, so no Step): ';

/** The footer's plain line where the browser blocks service workers (instead of the error it threw). */
export const OFFLINE_BLOCKED = 'offline use unavailable: service workers are blocked in this browser';

/**
 * What a failed registration means, from the error it rejected with: `blocked` where the browser refused service
 * workers as such — a SecurityError ("the user denied permission to use Service Worker": cookies or site data
 * blocked), a message saying denied/blocked/disabled, or a TypeError that is no registration failure at all
 * (register() gave back nothing, as where automation or an extension stubs it, and the registration's use threw);
 * else the error's message, for "the service worker did not start (…)" (a bad HTTP response for the script, …).
 */
export function registrationFailure(e: unknown): { blocked: true } | { blocked: false; message: string } {
  const name = typeof e === 'object' && e !== null && 'name' in e ? String(e.name) : '';
  const message =
    e instanceof Error
      ? e.message
      : typeof e === 'object' && e !== null && 'message' in e
        ? String(e.message)
        : String(e);
  if (name === 'SecurityError' || /denied|blocked|disabled|not allowed/i.test(message)) return { blocked: true };
  if (name === 'TypeError' && !/register|script|fetch/i.test(message)) return { blocked: true };
  return { blocked: false, message };
}

export function describeIsolation(f: IsolationFacts): IsolationStatus {
  if (f.isolated) {
    return {
      state: 'isolated',
      text: f.controlled
        ? 'threads possible: the lab’s service worker makes the page cross-origin isolated'
        : 'threads possible: the server sends the cross-origin isolation headers',
    };
  }
  if (!f.published) {
    return { state: 'impossible', text: `${SINGLE}this server sends no COOP/COEP headers (npm start does)` };
  }
  if (!f.secureContext) {
    return {
      state: 'impossible',
      text: `${SINGLE}the page is not served over https (or from localhost), where service workers cannot run, and the host sends no COOP/COEP headers`,
    };
  }
  if (!f.serviceWorkerApi) {
    return {
      state: 'impossible',
      text: `${SINGLE}this browser offers no service worker here (a private window?) and the host sends no COOP/COEP headers`,
    };
  }
  if (f.serviceWorkersBlocked) {
    return {
      state: 'impossible',
      text: `${OFFLINE_BLOCKED}; ${SINGLE.replace(/: $/, '')}`,
    };
  }
  if (f.registrationError !== null) {
    return { state: 'impossible', text: `${SINGLE}the service worker did not start (${f.registrationError})` };
  }
  if (f.controlled && f.reloaded) {
    return {
      state: 'impossible',
      text: `${SINGLE}the service worker runs, but this browser did not isolate the page (it ignores COOP/COEP from a service worker)`,
    };
  }
  return {
    state: 'pending',
    text: f.busy
      ? 'single-threaded for now: reload when this run ends to turn threads on (the lab’s service worker is ready)'
      : 'single-threaded for now: the page reloads once the lab’s service worker is installed, to turn threads on',
  };
}
