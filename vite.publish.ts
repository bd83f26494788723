// Publishing the production build on any static host, at any path (docs/deploy.md):
//  - the build's asset URLs are relative (`base: './'` in vite.config.ts), so one build works at `/` and at
//    `/retirelab/` alike; public/ files are found from the app's root (src/app/appRoot.ts);
//  - one service worker (src/app/publish/serviceWorker.ts, built by vite-plugin-pwa's injectManifest) precaches the
//    app shell, both wasm flavours, the KaTeX fonts and the presets for offline use, caches the shipped teachers and
//    the recorded runs (public/demo/) on first use (ON_DEMAND_PREFIXES), and adds
//    COOP/COEP to the app's own responses, so the page is cross-origin isolated (threads, Step) where the host
//    cannot send those headers;
//  - the version the page shows: package.json's version and a short build id (the git commit, else the build time).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

/**
 * What the service worker precaches, relative to the build folder. KaTeX's fonts as woff2 only: every browser that
 * runs service workers takes woff2 first from KaTeX's @font-face lists (the .woff/.ttf copies stay on the server).
 */
export const PRECACHE_GLOBS = [
  'index.html',
  'favicon.svg',
  'assets/**/*.{js,css,wasm,woff2,svg}',
  'presets/*.json',
  'teachers/**/*.{json,bin}',
  // the recorded runs the Overview and the playback show (public/demo/, npm run record-demo)
  'demo/**/*.{json,jsonl,bin}',
  // the held-out result files the "where it helps" map reads (public/outcomes/, cli/outcomeFiles.ts)
  'outcomes/*.json',
];

/**
 * Files listed in the build's manifest (so each has its revision) but cached on first use, not at install: the shipped
 * teachers and the recorded runs (serviceWorker.ts). The first visit fetches the app shell, scripts, wasm, fonts and
 * presets only; a teacher or recording is fetched when a run or the Overview first needs it, and is offline from then.
 */
export const ON_DEMAND_PREFIXES = ['teachers/', 'demo/'] as const;

/** The largest file the service worker precaches: tfjs's bundles (a few MB each) must fit. */
const MAX_PRECACHED_BYTES = 32 * 1024 * 1024;

/** Runs git with these arguments and returns its trimmed stdout; throws where git fails (no checkout, no git). */
export type GitRunner = (args: string[]) => string;

const gitIn =
  (root: string): GitRunner =>
  (args) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: 'pipe' }).trim();

/** A short id of the build: the git commit (with "+" when tracked files have changes), else the build time (UTC). */
export function buildId(git: GitRunner, now: Date = new Date()): string {
  try {
    const commit = git(['rev-parse', '--short=7', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
    return dirty ? `${commit}+` : commit;
  } catch {
    return now.toISOString().slice(0, 16).replace(/[-:]/g, '');
  }
}

/** Defines the version constants the app shows (src/app/publish/buildInfo.ts; "dev" in the dev server). */
function buildInfoPlugin(root: string): Plugin {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return {
    name: 'retirelab:build-info',
    config(_config, { command }) {
      return {
        define: {
          __RETIRELAB_VERSION__: JSON.stringify(pkg.version),
          __RETIRELAB_BUILD_ID__: JSON.stringify(command === 'build' ? buildId(gitIn(root)) : 'dev'),
          // the built app registers the service worker (whatever NODE_ENV is: tests build under 'test')
          __RETIRELAB_BUILT__: JSON.stringify(command === 'build'),
        },
      };
    },
  };
}

/** The plugins that make the production build publishable; the dev server gets the version constants only. */
export function publishPlugins(root: string): Plugin[] {
  return [
    buildInfoPlugin(root),
    ...VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src/app/publish',
      filename: 'serviceWorker.ts',
      // registered by src/app/publish/serviceWorkerClient.ts (a bundled module: no inline script, CSP-friendly)
      injectRegister: false,
      registerType: 'prompt',
      manifest: false,
      injectManifest: {
        globPatterns: PRECACHE_GLOBS,
        maximumFileSizeToCacheInBytes: MAX_PRECACHED_BYTES,
        // a classic script: module service workers are not in every browser a class may use
        rollupFormat: 'iife',
      },
      devOptions: { enabled: false },
    }),
  ];
}
