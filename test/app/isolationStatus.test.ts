// What the page says about threads, and why not (src/app/publish/isolationStatus.ts).
import { describe, expect, it } from 'vitest';
import { describeIsolation, registrationFailure, type IsolationFacts } from '../../src/app/publish/isolationStatus';

/** A published page on https in a browser with service workers, before anything happened. */
const fresh: IsolationFacts = {
  isolated: false,
  published: true,
  serviceWorkerApi: true,
  secureContext: true,
  controlled: false,
  reloaded: false,
  registrationError: null,
  serviceWorkersBlocked: false,
  busy: false,
};
const of = (change: Partial<IsolationFacts>) => describeIsolation({ ...fresh, ...change });

describe('describeIsolation', () => {
  it('says threads are on, and who isolated the page: the service worker or the server', () => {
    expect(of({ isolated: true, controlled: true })).toEqual({
      state: 'isolated',
      text: 'threads possible: the lab’s service worker makes the page cross-origin isolated',
    });
    expect(of({ isolated: true, published: false })).toEqual({
      state: 'isolated',
      text: 'threads possible: the server sends the cross-origin isolation headers',
    });
  });

  it('waits for the service worker on a first visit, and asks for the reload while a run is going', () => {
    expect(of({}).state).toBe('pending');
    expect(of({}).text).toContain('the page reloads once');
    expect(of({ controlled: true }).state).toBe('pending');
    expect(of({ busy: true })).toEqual({
      state: 'pending',
      text: 'single-threaded for now: reload when this run ends to turn threads on (the lab’s service worker is ready)',
    });
  });

  it('names why the page stays single-threaded where isolation is impossible', () => {
    const cases: [Partial<IsolationFacts>, string][] = [
      [{ published: false }, 'this server sends no COOP/COEP headers'],
      [{ secureContext: false, serviceWorkerApi: false }, 'not served over https (or from localhost)'],
      [{ serviceWorkerApi: false }, 'no service worker here (a private window?)'],
      [{ registrationError: 'it failed to install' }, 'the service worker did not start (it failed to install)'],
      [{ controlled: true, reloaded: true }, 'this browser did not isolate the page'],
    ];
    for (const [change, why] of cases) {
      const s = of(change);
      expect(s.state, why).toBe('impossible');
      expect(s.text.startsWith('single-threaded (no shared memory, so no Step): '), s.text).toBe(true);
      expect(s.text).toContain(why);
    }
  });

  it('never reloads in a loop: after its one reload, an uncontrolled page is still only pending', () => {
    // the service worker has not taken control yet (still installing): the reload already happened, none follows
    expect(of({ reloaded: true }).state).toBe('pending');
  });

  it('says plainly that offline use is unavailable where the browser blocks service workers, not the error it threw', () => {
    const blocked = [
      Object.assign(
        new Error('Failed to register a ServiceWorker: The user denied permission to use Service Worker.'),
        {
          name: 'SecurityError',
        },
      ),
      new TypeError("Cannot read properties of undefined (reading 'addEventListener')"),
      new Error('Service workers are disabled.'),
    ];
    for (const e of blocked) {
      const failure = registrationFailure(e);
      expect(failure, e.message).toEqual({ blocked: true });
      const s = of({ serviceWorkersBlocked: true });
      expect(s).toEqual({
        state: 'impossible',
        text: 'offline use unavailable: service workers are blocked in this browser; single-threaded (no shared memory, so no Step)',
      });
      expect(s.text).not.toContain('TypeError');
    }
    // a real failure to register (the script's HTTP status) is still named as it is
    const notFound = new TypeError(
      'Failed to register a ServiceWorker for scope (https://x/) with script (https://x/serviceWorker.js): A bad HTTP response code (404) was received when fetching the script.',
    );
    expect(registrationFailure(notFound)).toEqual({ blocked: false, message: notFound.message });
  });
});
