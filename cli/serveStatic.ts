// `npm run serve:static -- [--dir dist] [--base /retirelab/] [--port 4174] [--host 127.0.0.1]`: the production build
// as a plain static host serves it — GitHub Pages' way: the folder mounted under a path, `/retirelab` redirected to
// `/retirelab/`, index.html for a folder, and NO special headers (no COOP/COEP, no CSP), so what works here works
// there (docs/deploy.md). Build first with `npm run build`. Also the server of test/app/publish.e2e.test.ts.
import { existsSync, statSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import sirv from 'sirv';
import { UserError } from '../src/core/errors';
import { parseFlags } from './cliArgs';
import { isEntryPoint, runCliMain, type CliIo } from './cliMain';

export interface StaticServerOptions {
  /** the build folder (vite build's outDir) */
  dir: string;
  /** the path the folder is served under, "/" or "/name/" */
  base: string;
  /** 0: any free port */
  port: number;
  host: string;
}

export interface StaticServer {
  /** the app's URL: http://host:port/base/ */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** "/retirelab/" from "retirelab", "/retirelab" or "/retirelab/"; "/" from "" or "/". Refuses odd characters. */
export function normaliseBase(base: string): string {
  const trimmed = base.replace(/^\/+|\/+$/g, '');
  if (trimmed !== '' && !/^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/.test(trimmed)) {
    throw new UserError(`--base: expected a path such as /retirelab/, got "${base}"`);
  }
  return trimmed === '' ? '/' : `/${trimmed}/`;
}

/** What changes when a build replaces the folder: index.html's identity and time, the folder's and assets/'s times. */
function buildStamp(dir: string): string {
  return [join(dir, 'index.html'), dir, join(dir, 'assets')]
    .map((p) => {
      try {
        const st = statSync(p);
        return `${st.ino}:${st.size}:${st.mtimeMs}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

export async function startStaticServer(options: StaticServerOptions): Promise<StaticServer> {
  const dir = resolve(options.dir);
  if (!existsSync(join(dir, 'index.html'))) {
    throw new UserError(`--dir ${options.dir}: no index.html there (build the app first: npm run build)`);
  }
  const base = normaliseBase(options.base);
  // no cache headers (plain hosts send none or short ones), etags, no SPA fallback; `/x` finds x.html, `/d/` d/index.html
  const make = () => sirv(dir, { dev: false, etag: true, dotfiles: false });
  // sirv lists the folder once; `npm run build` while the server is up replaces it, so the list is made again when
  // the build's stamp (index.html and the folders' modification times) changes, and once more before a 404
  let files = make();
  let stamp = buildStamp(dir);
  const current = (): typeof files => {
    const now = buildStamp(dir);
    if (now !== stamp) {
      files = make();
      stamp = now;
    }
    return files;
  };
  const notFound = (res: ServerResponse) => {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('404 not found\n');
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    if (url.pathname === base.slice(0, -1) && base !== '/') {
      res.writeHead(301, { Location: `${base}${url.search}` });
      res.end();
      return;
    }
    if (!url.pathname.startsWith(base)) return notFound(res);
    req.url = `/${url.pathname.slice(base.length)}${url.search}`;
    current()(req, res, () => {
      // a file the list has not seen (written after it was made, within the same second as its stamp): look again
      files = make();
      files(req, res, () => notFound(res));
    });
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port, options.host, () => done());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the static server reported no port');
  return {
    url: `http://${options.host}:${address.port}${base}`,
    port: address.port,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        // open keep-alive connections would hold close() until they time out
        server.closeAllConnections();
      }),
  };
}

const HELP = `npm run serve:static -- [--dir dist] [--base /retirelab/] [--port 4174] [--host 127.0.0.1]
Serves the production build (npm run build) as a plain static host would: under --base, with no COOP/COEP headers.
The lab's service worker makes the page cross-origin isolated and offline-ready after its first reload.
`;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    dir: { type: 'string', default: 'dist' },
    base: { type: 'string', default: '/' },
    port: { type: 'string', default: '4174' },
    host: { type: 'string', default: '127.0.0.1' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UserError(`--port: expected an integer 0–65535, got "${values.port}"`);
  }
  const server = await startStaticServer({ dir: values.dir, base: values.base, port, host: values.host });
  io.stdout(`serving ${values.dir} at ${server.url} (no COOP/COEP headers; Ctrl-C stops)\n`);
  await new Promise<void>((done) => process.once('SIGINT', () => void server.close().then(done)));
  return 0;
}

if (isEntryPoint(import.meta.url)) runCliMain('serve:static', main);
