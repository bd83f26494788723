// The version the page shows: package.json's version and the build's short id (the git commit, "+" when built from
// a changed tree; else the build time). Defined at build time by vite.publish.ts; "dev" in the dev server, and in
// tests, which run without Vite's defines.
declare const __RETIRELAB_VERSION__: string | undefined;
declare const __RETIRELAB_BUILD_ID__: string | undefined;
declare const __RETIRELAB_BUILT__: boolean | undefined;

export const APP_VERSION: string = typeof __RETIRELAB_VERSION__ === 'string' ? __RETIRELAB_VERSION__ : '0.0.0';
export const BUILD_ID: string = typeof __RETIRELAB_BUILD_ID__ === 'string' ? __RETIRELAB_BUILD_ID__ : 'dev';

/** `vite build`'s output (it has the service worker), not the dev server */
export const BUILT: boolean = typeof __RETIRELAB_BUILT__ === 'boolean' ? __RETIRELAB_BUILT__ : false;

/** "v0.1.0 · 1a2b3c4" */
export const VERSION_LABEL = `v${APP_VERSION} · ${BUILD_ID}`;
