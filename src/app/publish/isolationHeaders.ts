// The headers the service worker adds to the app's own responses where the host cannot send them: the two that make
// a page cross-origin isolated (SharedArrayBuffer: wasm threads and the Step button's shared control flags), and the
// built app's Content-Security-Policy, so that the workers' scripts are bound by it too (a <meta> policy binds only
// the page). The same values vite.config.ts's preview server sends.
import { CONTENT_SECURITY_POLICY } from '../contentSecurityPolicy';

export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export const PUBLISHED_HEADERS: Readonly<Record<string, string>> = {
  ...ISOLATION_HEADERS,
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
};

/**
 * `response` with the isolation headers and the policy set (its body, status and other headers kept). An opaque response (status
 * 0: a no-cors request to another origin — the lab makes none) cannot be rebuilt and is returned as it is.
 */
export function withIsolationHeaders(response: Response): Response {
  if (response.status === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(PUBLISHED_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
