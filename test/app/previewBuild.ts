// The production build served as `vite preview` serves it (the app's own headers), for the measuring scripts that
// time the page as a user gets it (measureLongTasks.ts, measureReplayInTab.ts, measureImportInTab.ts).
import { join } from 'node:path';
import { build, preview } from 'vite';
import { ROOT } from './appServer';

export interface PreviewedBuild {
  /** the page's URL, e.g. http://127.0.0.1:4321/ */
  url: string;
  close(): Promise<void>;
}

/** Build the app into `outDir` (minified unless `minify` is false) and serve it on a free port. */
export async function buildAndPreview(outDir: string, minify = true): Promise<PreviewedBuild> {
  const configFile = join(ROOT, 'vite.config.ts');
  await build({ root: ROOT, configFile, logLevel: 'error', build: { outDir, emptyOutDir: true, minify } });
  const server = await preview({
    root: ROOT,
    configFile,
    logLevel: 'error',
    build: { outDir },
    preview: { port: 0, host: '127.0.0.1' },
  });
  const address = server.httpServer.address();
  if (!address || typeof address === 'string') throw new Error('vite preview has no port');
  return {
    url: `http://127.0.0.1:${address.port}/`,
    close: () => new Promise<void>((resolve) => server.httpServer.close(() => resolve())),
  };
}
