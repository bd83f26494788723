import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { CONTENT_SECURITY_POLICY, DEV_CONTENT_SECURITY_POLICY } from './src/app/contentSecurityPolicy';
import { publishPlugins } from './vite.publish';

// Cross-origin isolation lets tfjs-wasm use threads (SharedArrayBuffer) in the dev and preview servers alike.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * Threaded wasm after minification. tfjs-backend-wasm hands emscripten's pthread helpers their main script as a
 * Blob of `"var WasmBackendModuleThreadedSimd = " + factory.toString()`: the factory's own source text, which only
 * works while the factory is self-contained. Minified, it refers to names of the enclosing bundle chunk (the
 * helpers died with "e is not defined"). This plugin makes that Blob the package's original emscripten script
 * (wasm-out/tfjs-backend-wasm-threaded-simd.js, imported as raw text, so neither bundled nor minified). It
 * fails the build if tfjs's code no longer has the expected shape rather than shipping a broken threaded path.
 * The dev server pre-bundles tfjs without minifying, where toString() still works.
 */
function tfjsWasmThreadsPlugin(): Plugin {
  const require = createRequire(import.meta.url);
  const wasmDist = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/index.js'));
  const mainScript = join(wasmDist, '..', 'wasm-out', 'tfjs-backend-wasm-threaded-simd.js');
  const blobSource = /`var WasmBackendModuleThreadedSimd = ` \+\s*wasmFactoryThreadedSimd\.toString\(\)/;
  let bundledFactory = false;
  let patched = false;
  return {
    name: 'retirelab:tfjs-wasm-threads',
    apply: 'build',
    transform(code, id) {
      const file = id.replace(/\\/g, '/');
      if (file.endsWith('/wasm-out/tfjs-backend-wasm-threaded-simd.js')) bundledFactory = true;
      if (!file.endsWith('/tfjs-backend-wasm/dist/backend_wasm.js')) return null;
      patched = true;
      if (!blobSource.test(code)) {
        this.error(
          `tfjs-backend-wasm changed: ${id} no longer builds the pthread main script from factory.toString(); ` +
            'check threaded wasm in a production build (npm run bench:browser -- --backends wasm-threaded) and update vite.config.ts',
        );
      }
      const importLine = `import __threadedSimdMainScript from ${JSON.stringify(mainScript + '?raw')};\n`;
      return { code: importLine + code.replace(blobSource, '__threadedSimdMainScript'), map: null };
    },
    buildEnd() {
      // tfjs resolved through another entry file (e.g. a prebundled fesm build): the Blob would still be minified
      if (bundledFactory && !patched) {
        this.error('tfjs-backend-wasm was bundled without dist/backend_wasm.js: update the threaded-wasm plugin');
      }
    },
  };
}

/** The dev server's page gets the dev policy in its meta tag too (index.html holds the built app's strict one). */
function devContentSecurityPolicyPlugin(): Plugin {
  return {
    name: 'retirelab:dev-csp',
    apply: 'serve',
    transformIndexHtml: (html) => html.replace(CONTENT_SECURITY_POLICY, DEV_CONTENT_SECURITY_POLICY),
  };
}

export default defineConfig({
  // relative asset URLs: one build works at any path of any static host (vite.publish.ts, docs/deploy.md)
  base: './',
  plugins: [
    react(),
    tfjsWasmThreadsPlugin(),
    devContentSecurityPolicyPlugin(),
    ...publishPlugins(dirname(fileURLToPath(import.meta.url))),
  ],
  // the Content-Security-Policy (src/app/contentSecurityPolicy.ts) as a header binds the workers too
  server: { headers: { ...isolation, 'Content-Security-Policy': DEV_CONTENT_SECURITY_POLICY } },
  preview: { headers: { ...isolation, 'Content-Security-Policy': CONTENT_SECURITY_POLICY } },
  // the training worker (and the bench worker) are bundled separately: they need the plugin too
  worker: { format: 'es', plugins: () => [tfjsWasmThreadsPlugin()] },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
});
