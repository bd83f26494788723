// The two headers that make a page cross-origin isolated (SharedArrayBuffer: wasm threads and the Step button's
// shared control flags), added by the service worker to the app's own responses where the host cannot send them.
// The same values vite.config.ts's dev and preview servers send.
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * `response` with the isolation headers set (its body, status and other headers kept). An opaque response (status
 * 0: a no-cors request to another origin — the lab makes none) cannot be rebuilt and is returned as it is.
 */
export function withIsolationHeaders(response: Response): Response {
  if (response.status === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
