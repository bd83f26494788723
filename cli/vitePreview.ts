// A production build served as a user gets it: `vite build` with the app's vite.config.ts (the same wasm assets,
// threaded-wasm setup and base path) into a temporary folder, then Vite's preview server on a free port of 127.0.0.1,
// which sends the app's cross-origin-isolation headers. Used by the Chromium benchmarks (the bench page) and by the
// browser tests and measuring scripts (the whole app). Node only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';

/** the repository root (where vite.config.ts and index.html are) */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface PreviewedBuild {
  /** the server's root URL, e.g. http://127.0.0.1:4321/ */
  url: string;
  /** stops the server and removes the build folder when this module made it */
  close(): Promise<void>;
}

export interface PreviewOptions {
  /** where the build goes; default a fresh temporary folder, removed by close() */
  outDir?: string;
  /** minify the bundle (default true, as `npm run build` does) */
  minify?: boolean;
  /** an HTML entry other than the app's index.html, relative to the root (e.g. the bench page) */
  page?: string;
  /** Vite's build log level (default 'error') */
  buildLogLevel?: 'error' | 'warn' | 'info';
}

/** Build the app (or one page of the repository) and serve it with Vite's preview server on a free port. */
export async function buildAndPreview(options: PreviewOptions = {}): Promise<PreviewedBuild> {
  const configFile = join(ROOT, 'vite.config.ts');
  const scratch = options.outDir === undefined ? mkdtempSync(join(tmpdir(), 'retirelab-build-')) : undefined;
  const outDir = options.outDir ?? join(scratch as string, 'dist');
  const cleanup = () => {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  };
  try {
    await build({
      root: ROOT,
      configFile,
      logLevel: options.buildLogLevel ?? 'error',
      build: {
        outDir,
        emptyOutDir: true,
        minify: options.minify ?? true,
        ...(options.page === undefined ? {} : { rollupOptions: { input: join(ROOT, options.page) } }),
      },
    });
    const server = await preview({
      root: ROOT,
      configFile,
      logLevel: 'error',
      build: { outDir },
      preview: { host: '127.0.0.1', port: 0, strictPort: false },
    });
    const address = server.httpServer.address();
    if (!address || typeof address === 'string') {
      await server.close();
      throw new Error('the Vite preview server reported no port');
    }
    return {
      url: `http://127.0.0.1:${address.port}/`,
      close: async () => {
        await server.close();
        cleanup();
      },
    };
  } catch (error) {
    cleanup();
    throw error;
  }
}
