// `npm run serve:static`'s server (cli/serveStatic.ts), in-process on a small folder: GitHub Pages' behaviour at a
// sub-path, and none of the headers a plain host does not send.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, normaliseBase, startStaticServer, type StaticServer } from '../../cli/serveStatic';

describe('normaliseBase', () => {
  it('gives "/name/" for any spelling of a sub-path and "/" for the root', () => {
    expect(['retirelab', '/retirelab', '/retirelab/', 'retirelab/'].map(normaliseBase)).toEqual(
      Array(4).fill('/retirelab/'),
    );
    expect(normaliseBase('/a/b')).toBe('/a/b/');
    expect(normaliseBase('')).toBe('/');
    expect(normaliseBase('/')).toBe('/');
  });

  it('refuses a base that is not a plain path, naming the flag', () => {
    expect(() => normaliseBase('/a b/')).toThrow('--base: expected a path such as /retirelab/, got "/a b/"');
    expect(() => normaliseBase('http://x/')).toThrow('--base');
  });
});

describe('the static server', () => {
  let dir: string;
  let server: StaticServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'retirelab-static-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>lab</title>');
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'assets', 'x.wasm'), new Uint8Array([0, 97, 115, 109]));
    server = await startStaticServer({ dir, base: '/retirelab', port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the folder under the base, index.html for the folder, with no COOP/COEP or CSP headers', async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/retirelab/`);
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<!doctype html><title>lab</title>');
    for (const h of ['cross-origin-opener-policy', 'cross-origin-embedder-policy', 'content-security-policy']) {
      expect(res.headers.get(h), h).toBeNull();
    }
  });

  it('serves wasm as application/wasm (needed for streaming compilation)', async () => {
    const res = await fetch(`${server.url}assets/x.wasm`);
    expect(res.headers.get('content-type')).toBe('application/wasm');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array([0, 97, 115, 109]));
  });

  it('redirects the base without its slash, and answers 404 outside the base and for missing files', async () => {
    const bare = await fetch(`http://127.0.0.1:${server.port}/retirelab?x=1`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/retirelab/?x=1']);
    expect((await fetch(`http://127.0.0.1:${server.port}/index.html`)).status).toBe(404);
    expect((await fetch(`${server.url}nothing.js`)).status).toBe(404);
  });

  it('serves the current build after the folder is rebuilt while it is up (new files found, removed ones gone)', async () => {
    const own = mkdtempSync(join(tmpdir(), 'retirelab-rebuild-'));
    try {
      const build = (html: string, asset: string): void => {
        rmSync(join(own, 'assets'), { recursive: true, force: true });
        mkdirSync(join(own, 'assets'));
        writeFileSync(join(own, 'assets', asset), `// ${asset}`);
        writeFileSync(join(own, 'index.html'), html);
      };
      build('<!doctype html><title>first build</title>', 'index-aaaa.js');
      const s = await startStaticServer({ dir: own, base: '/', port: 0, host: '127.0.0.1' });
      try {
        expect(await (await fetch(s.url)).text()).toBe('<!doctype html><title>first build</title>');
        build('<!doctype html><title>the second, longer build</title>', 'index-bbbb.js');
        const page = await fetch(s.url);
        expect([page.status, await page.text()]).toEqual([
          200,
          '<!doctype html><title>the second, longer build</title>',
        ]);
        const fresh = await fetch(`${s.url}assets/index-bbbb.js`);
        expect([fresh.status, await fresh.text()]).toEqual([200, '// index-bbbb.js']);
        expect((await fetch(`${s.url}assets/index-aaaa.js`)).status).toBe(404);
      } finally {
        await s.close();
      }
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('refuses a folder with no build in it, saying how to make one', async () => {
    await expect(
      startStaticServer({ dir: join(dir, 'assets'), base: '/', port: 0, host: '127.0.0.1' }),
    ).rejects.toThrow('no index.html there (build the app first: npm run build)');
  });

  it('prints its usage with --help and refuses a bad port', async () => {
    let out = '';
    expect(await main(['--help'], { stdout: (t) => void (out += t), stderr: () => undefined })).toBe(0);
    expect(out).toContain('npm run serve:static -- [--dir dist] [--base /retirelab/]');
    await expect(main(['--port', 'x'], { stdout: () => undefined, stderr: () => undefined })).rejects.toThrow(
      '--port: expected an integer 0–65535, got "x"',
    );
  });
});
