// Every worker binds itself to the app's origin, whatever the host sends. A worker's Content-Security-Policy comes
// only from its own script's response headers: the dev and preview servers send one, but a plain static host does
// not, and the service worker that adds it controls the page only after the first visit (never, where the browser
// blocks service workers). So each worker entry imports this module first: in a worker it wraps fetch,
// importScripts, XMLHttpRequest, WebSocket and EventSource so that a URL on another origin is refused before any
// request is made — the same rule as the policy's connect-src 'self', on any host. data: and blob: URLs (a blob:
// URL belongs to the origin that made it) stay allowed: tfjs-wasm starts its pthread helpers from a Blob.

/** A request the worker refused: the URL is not on the app's origin. */
export class OffOriginError extends Error {
  override name = 'OffOriginError';
  constructor(readonly url: string) {
    super(`refused: ${url.length > 120 ? `${url.slice(0, 120)}…` : url} is not on this app's origin`);
  }
}

/** Whether `url` (relative to `base`, the worker's own URL) stays on base's origin, or is a data:/blob: URL of it. */
export function onOrigin(url: string, base: string): boolean {
  let target: URL;
  try {
    target = new URL(url, base);
  } catch {
    return false;
  }
  if (target.protocol === 'data:') return true;
  // a socket to the app's own host is the app's (as CSP's 'self' treats ws:/wss:): compared as http:/https:
  if (target.protocol === 'ws:' || target.protocol === 'wss:')
    target = new URL(`${target.protocol === 'ws:' ? 'http:' : 'https:'}${target.href.slice(target.protocol.length)}`);
  // a blob: URL's origin is its creator's (new URL('blob:https://a/x').origin === 'https://a')
  return target.origin === new URL(base).origin;
}

/** The parts of a worker's global scope the guard wraps (all optional but location: tests pass a stand-in). */
export interface GuardedScope {
  location: { href: string };
  fetch?: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  importScripts?: (...urls: (string | URL)[]) => void;
  XMLHttpRequest?: { prototype: { open: (method: string, url: string | URL, ...rest: unknown[]) => void } };
  WebSocket?: Connection;
  EventSource?: Connection;
}

/** WebSocket's and EventSource's constructors: a URL and their options (protocols, init). */
type Connection = new (url: string | URL, options?: never) => unknown;

const urlOf = (input: RequestInfo | URL): string =>
  typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;

/** Wrap the scope's ways out so that each refuses (throws or rejects with OffOriginError) a URL off its origin. */
export function guardOrigin(scope: GuardedScope): void {
  const base = scope.location.href;
  const check = (url: string | URL): void => {
    const text = typeof url === 'string' ? url : url.href;
    if (!onOrigin(text, base)) throw new OffOriginError(text);
  };
  const realFetch = scope.fetch;
  if (realFetch) {
    scope.fetch = (input, init) => {
      try {
        check(urlOf(input));
      } catch (e) {
        return Promise.reject(e instanceof Error ? e : new Error(String(e)));
      }
      return realFetch.call(scope, input, init);
    };
  }
  const realImport = scope.importScripts;
  if (realImport) {
    scope.importScripts = (...urls) => {
      urls.forEach(check);
      realImport.apply(scope, urls);
    };
  }
  const xhr = scope.XMLHttpRequest?.prototype;
  if (xhr) {
    const realOpen = xhr.open;
    xhr.open = function (this: unknown, method: string, url: string | URL, ...rest: unknown[]) {
      check(url);
      realOpen.call(this, method, url, ...rest);
    };
  }
  for (const name of ['WebSocket', 'EventSource'] as const) {
    const Real = scope[name];
    if (!Real) continue;
    const Guarded = function (url: string | URL, options?: never) {
      check(url);
      return new Real(url, options);
    } as unknown as Connection;
    Guarded.prototype = Real.prototype as unknown;
    scope[name] = Guarded;
  }
}

// In a worker (never on the page, nor in Node's tests), bind this worker as soon as its entry imports this module.
declare const WorkerGlobalScope: { new (): unknown } | undefined;
if (typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope)
  guardOrigin(globalThis as unknown as GuardedScope);
