import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, DEV_CONTENT_SECURITY_POLICY } from '../../src/app/contentSecurityPolicy';
import { ROOT } from './appServer';

const directives = (policy: string) =>
  new Map(
    policy.split(';').map((d) => {
      const [name, ...sources] = d.trim().split(/\s+/);
      return [name as string, sources];
    }),
  );

describe('the Content-Security-Policy', () => {
  it('is the meta tag of index.html, word for word', () => {
    const html = readFileSync(join(ROOT, 'index.html'), 'utf8');
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(html);
    expect(meta?.[1]).toBe(CONTENT_SECURITY_POLICY);
  });

  it('lets the page and its workers connect only to their own origin and run no inline or eval’d script', () => {
    const d = directives(CONTENT_SECURITY_POLICY);
    expect(d.get('connect-src')).toEqual(["'self'"]);
    expect(d.get('default-src')).toEqual(["'self'"]);
    expect(d.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'", 'blob:']);
    expect(d.get('worker-src')).toEqual(["'self'", 'blob:']);
    expect(d.get('object-src')).toEqual(["'none'"]);
  });

  it('relaxes only script-src on the dev server, for the React refresh preamble', () => {
    const strict = directives(CONTENT_SECURITY_POLICY);
    const dev = directives(DEV_CONTENT_SECURITY_POLICY);
    expect(dev.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'", 'blob:', "'unsafe-inline'"]);
    for (const [name, sources] of strict) if (name !== 'script-src') expect(dev.get(name), name).toEqual(sources);
  });
});
