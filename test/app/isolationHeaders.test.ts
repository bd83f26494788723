// The headers the service worker adds to the app's own responses (src/app/publish/isolationHeaders.ts).
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/app/contentSecurityPolicy';
import { ISOLATION_HEADERS, PUBLISHED_HEADERS, withIsolationHeaders } from '../../src/app/publish/isolationHeaders';
import viteConfig from '../../vite.config';

describe('withIsolationHeaders', () => {
  it('adds COOP same-origin and COEP require-corp, keeping the body, status and other headers', async () => {
    const original = new Response('{"a":1}', {
      status: 201,
      statusText: 'Created',
      headers: { 'Content-Type': 'application/json', ETag: '"x"' },
    });
    const r = withIsolationHeaders(original);
    expect(r.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(r.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('etag')).toBe('"x"');
    expect([r.status, r.statusText]).toEqual([201, 'Created']);
    expect(await r.text()).toBe('{"a":1}');
  });

  it('replaces weaker values a host sent', () => {
    const r = withIsolationHeaders(
      new Response('', {
        headers: { 'Cross-Origin-Embedder-Policy': 'unsafe-none', 'Cross-Origin-Opener-Policy': 'unsafe-none' },
      }),
    );
    expect(r.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(r.headers.get('cross-origin-opener-policy')).toBe('same-origin');
  });

  it('keeps a body-less response body-less (304, 204)', () => {
    const r = withIsolationHeaders(new Response(null, { status: 304 }));
    expect(r.status).toBe(304);
    expect(r.body).toBeNull();
    expect(r.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
  });

  it('returns an opaque response (status 0) as it is', () => {
    const opaque = Response.error();
    expect(opaque.status).toBe(0);
    expect(withIsolationHeaders(opaque)).toBe(opaque);
  });

  it('adds the headers the preview server sends: isolation and the built app’s policy (the dev server relaxes the policy)', () => {
    expect(ISOLATION_HEADERS).toEqual({
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    });
    expect(PUBLISHED_HEADERS).toEqual({ ...ISOLATION_HEADERS, 'Content-Security-Policy': CONTENT_SECURITY_POLICY });
    expect(viteConfig.preview?.headers).toEqual(PUBLISHED_HEADERS);
    expect(viteConfig.server?.headers).toMatchObject(ISOLATION_HEADERS);
    expect(withIsolationHeaders(new Response('')).headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });
});
