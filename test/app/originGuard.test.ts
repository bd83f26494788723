// The workers' own origin wall (src/app/worker/originGuard.ts), on a stand-in worker scope in Node.
import { describe, expect, it } from 'vitest';
import { guardOrigin, OffOriginError, onOrigin, type GuardedScope } from '../../src/app/worker/originGuard';

const BASE = 'https://lab.example/retirelab/assets/importWorker-abc.js';

/** A worker scope whose ways out record the URLs they were asked for. */
function scope() {
  const asked: string[] = [];
  class Xhr {
    open(_method: string, url: string | URL) {
      asked.push(`xhr ${String(url)}`);
    }
  }
  class Socket {
    constructor(url: string | URL) {
      asked.push(`ws ${String(url)}`);
    }
  }
  const s: GuardedScope = {
    location: { href: BASE },
    fetch: (input) => {
      asked.push(`fetch ${typeof input === 'string' ? input : input instanceof URL ? input.href : input.url}`);
      return Promise.resolve(new Response('ok'));
    },
    importScripts: (...urls) => asked.push(...urls.map((u) => `import ${String(u)}`)),
    XMLHttpRequest: Xhr,
    WebSocket: Socket as never,
  };
  guardOrigin(s);
  return { s, asked, Xhr };
}

describe('the workers’ origin guard', () => {
  it('tells the app’s origin (relative, absolute, data:, its own blob:) from any other', () => {
    for (const url of [
      'presets/smoke.json',
      '/retirelab/teachers/shell/model.json',
      'data:,x',
      'blob:https://lab.example/1',
    ])
      expect(onOrigin(url, BASE), url).toBe(true);
    for (const url of [
      'https://other.example/x',
      '//other.example/x',
      'http://lab.example/x',
      'blob:https://other.example/1',
      'javascript:alert(1)',
    ])
      expect(onOrigin(url, BASE), url).toBe(false);
  });

  it('refuses fetch, importScripts, XMLHttpRequest and WebSocket to another origin before any request', async () => {
    const { s, asked, Xhr } = scope();
    await expect(s.fetch!('https://other.example/probe')).rejects.toThrow(
      "refused: https://other.example/probe is not on this app's origin",
    );
    await expect(s.fetch!(new URL('https://other.example/u'))).rejects.toBeInstanceOf(OffOriginError);
    expect(() => s.importScripts!('presets.js', 'https://cdn.example/x.js')).toThrow(OffOriginError);
    expect(() => new Xhr().open('GET', 'https://other.example/x')).toThrow(OffOriginError);
    expect(() => new s.WebSocket!('wss://other.example/s')).toThrow(OffOriginError);
    expect(asked).toEqual([]);
  });

  it('lets same-origin requests through unchanged', async () => {
    const { s, asked, Xhr } = scope();
    expect(await (await s.fetch!('../presets/smoke.json')).text()).toBe('ok');
    s.importScripts!('blob:https://lab.example/helper');
    new Xhr().open('GET', '/retirelab/x');
    new s.WebSocket!('wss://lab.example/socket');
    expect(asked).toEqual([
      'fetch ../presets/smoke.json',
      'import blob:https://lab.example/helper',
      'xhr /retirelab/x',
      'ws wss://lab.example/socket',
    ]);
  });
});
