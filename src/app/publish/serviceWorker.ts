/// <reference lib="webworker" />
// The published lab's one service worker (built by vite-plugin-pwa's injectManifest into serviceWorker.js at the
// build's root; never in the dev server). It
//  - precaches the build (vite.publish.ts's PRECACHE_GLOBS: app shell, both wasm flavours, KaTeX's fonts, the
//    presets, the shipped teachers), so the lab loads and trains offline after the first visit;
//  - adds COOP/COEP to every response it serves (from the cache or the network), so the page and its workers are
//    cross-origin isolated on hosts that cannot send those headers (GitHub Pages);
//  - takes control of the open pages at its first install (the page then reloads once, isolated), but waits after an
//    update until the page asks for it ("update available — reload": SKIP_WAITING from workbox-window).
// It touches only the Cache Storage: the stored runs (IndexedDB) are never read or cleared by an install or update.
import { clientsClaim, type WorkboxPlugin } from 'workbox-core';
import { addPlugins, cleanupOutdatedCaches, precacheAndRoute, type PrecacheEntry } from 'workbox-precaching';
import { setDefaultHandler } from 'workbox-routing';
import { NetworkOnly } from 'workbox-strategies';
import { withIsolationHeaders } from './isolationHeaders';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | PrecacheEntry)[] };

const isolation: WorkboxPlugin = {
  handlerWillRespond: async ({ response }) => withIsolationHeaders(response),
};

addPlugins([isolation]);
// `./` (a navigation to the app's folder) is answered with the precached index.html
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
// anything not precached (a file added to the host by hand) goes to the network, with the headers too
setDefaultHandler(new NetworkOnly({ plugins: [isolation] }));

self.addEventListener('message', (event: ExtendableMessageEvent) => {
  if ((event.data as { type?: unknown } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});

// pages not yet controlled (the first visit, a hard reload) are taken over at activation; an update reaches the
// pages the previous version controls only through SKIP_WAITING
clientsClaim();
