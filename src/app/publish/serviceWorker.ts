/// <reference lib="webworker" />
// The published lab's one service worker (built by vite-plugin-pwa's injectManifest into serviceWorker.js at the
// build's root; never in the dev server). It
//  - precaches what the first visit needs (vite.publish.ts's PRECACHE_GLOBS less ON_DEMAND_PREFIXES: app shell, both
//    wasm flavours, KaTeX's fonts, the presets), so the lab loads and trains offline after the first visit;
//  - caches the shipped teachers and the recorded runs (teachers/, demo/) on first use, cache first: each keyed by
//    its revision from the build's manifest, so a new build's changed file is fetched again and the old copy removed;
//  - adds COOP/COEP to every response it serves (from the cache or the network), so the page and its workers are
//    cross-origin isolated on hosts that cannot send those headers (GitHub Pages);
//  - takes control of the open pages at its first install (the page then reloads once, isolated), but waits after an
//    update until the page asks for it ("update available — reload": SKIP_WAITING from workbox-window).
// It touches only the Cache Storage: the stored runs (IndexedDB) are never read or cleared by an install or update.
import { clientsClaim, type WorkboxPlugin } from 'workbox-core';
import { addPlugins, cleanupOutdatedCaches, precacheAndRoute, type PrecacheEntry } from 'workbox-precaching';
import { registerRoute, setDefaultHandler } from 'workbox-routing';
import { CacheFirst, NetworkOnly } from 'workbox-strategies';
import { withIsolationHeaders } from './isolationHeaders';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | PrecacheEntry)[] };

/** Kept in step with vite.publish.ts's ON_DEMAND_PREFIXES (the worker is bundled apart from the Vite config). */
const ON_DEMAND_PREFIXES = ['teachers/', 'demo/'];
const ON_DEMAND_CACHE = 'retirelab-on-demand';

const isolation: WorkboxPlugin = {
  handlerWillRespond: async ({ response }) => withIsolationHeaders(response),
};

const entries = self.__WB_MANIFEST.map((e) => (typeof e === 'string' ? { url: e, revision: null } : e));
const onDemand = (url: string) => ON_DEMAND_PREFIXES.some((prefix) => url.startsWith(prefix));
/** absolute URL → the cache key of this build's version of the file (its revision in the manifest) */
const onDemandKeys = new Map(
  entries
    .filter((e) => onDemand(e.url))
    .map((e) => {
      const href = new URL(e.url, self.location.href).href;
      return [href, e.revision ? `${href}?__revision=${e.revision}` : href] as const;
    }),
);

addPlugins([isolation]);
// `./` (a navigation to the app's folder) is answered with the precached index.html
precacheAndRoute(entries.filter((e) => !onDemand(e.url)));
cleanupOutdatedCaches();
registerRoute(
  ({ url }) => onDemandKeys.has(url.origin + url.pathname),
  new CacheFirst({
    cacheName: ON_DEMAND_CACHE,
    plugins: [
      isolation,
      {
        cacheKeyWillBeUsed: async ({ request }) => {
          const url = new URL(request.url);
          return onDemandKeys.get(url.origin + url.pathname) ?? request;
        },
      },
    ],
  }),
);
// anything not precached (a file added to the host by hand) goes to the network, with the headers too
setDefaultHandler(new NetworkOnly({ plugins: [isolation] }));

// a new version drops the copies of files it no longer lists, or lists with another revision
self.addEventListener('activate', (event: ExtendableEvent) => {
  const current = new Set(onDemandKeys.values());
  event.waitUntil(
    caches.open(ON_DEMAND_CACHE).then(async (cache) => {
      for (const request of await cache.keys()) if (!current.has(request.url)) await cache.delete(request);
    }),
  );
});

self.addEventListener('message', (event: ExtendableMessageEvent) => {
  if ((event.data as { type?: unknown } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});

// pages not yet controlled (the first visit, a hard reload) are taken over at activation; an update reaches the
// pages the previous version controls only through SKIP_WAITING
clientsClaim();
