// The page's Content-Security-Policy: a second wall behind the config checks, so that a value that slips through
// cannot make the page or its workers load code or data from elsewhere. The built app carries it twice — a
// <meta http-equiv> in index.html (any static host) and a response header from `vite preview` (the header also binds
// the workers, whose policy comes with their own script response, never from the page's meta tag).
// The dev server relaxes one thing: @vitejs/plugin-react injects an inline script (the React refresh preamble) and
// Vite injects CSS as <style> elements, so script-src adds 'unsafe-inline' there; nothing else differs.
// Pure data (no DOM): vite.config.ts reads it in Node, a unit test checks index.html's meta tag against it.

/** Directive → sources. Order is the order written. */
type Policy = ReadonlyArray<readonly [directive: string, sources: readonly string[]]>;

const STRICT: Policy = [
  ['default-src', ["'self'"]],
  // 'wasm-unsafe-eval': compiling the tfjs-wasm binaries; blob: the threaded build's pthread helpers importScripts()
  // their emscripten script from a Blob the worker made (a blob: URL is only ever made by code already running here)
  // — no inline scripts, no eval
  ['script-src', ["'self'", "'wasm-unsafe-eval'", 'blob:']],
  // blob: the threaded tfjs-wasm build starts its pthread helpers from a Blob; 'self': the training, replay and
  // import workers and a service worker, all same-origin script files
  ['worker-src', ["'self'", 'blob:']],
  // fetch/XHR/WebSocket only to this origin: presets, shipped teachers, wasm binaries (and the dev server's socket)
  ['connect-src', ["'self'"]],
  // 'unsafe-inline': KaTeX's HTML carries style attributes (React's own style props go through the CSSOM)
  ['style-src', ["'self'", "'unsafe-inline'"]],
  ['font-src', ["'self'", 'data:']],
  // data:/blob: the charts' PNG export and SVG previews
  ['img-src', ["'self'", 'data:', 'blob:']],
  ['manifest-src', ["'self'"]],
  ['object-src', ["'none'"]],
  ['base-uri', ["'self'"]],
  ['form-action', ["'self'"]],
];

const format = (policy: Policy) => policy.map(([d, sources]) => `${d} ${sources.join(' ')}`).join('; ');

/** The policy of the built app (index.html's meta tag and `vite preview`'s header). */
export const CONTENT_SECURITY_POLICY = format(STRICT);

/** The dev server's: the same, with inline scripts allowed for the React refresh preamble. */
export const DEV_CONTENT_SECURITY_POLICY = format(
  STRICT.map(([d, s]) => [d, d === 'script-src' ? [...s, "'unsafe-inline'"] : s] as const),
);
