// The same seed must give the same tasks and observations in Node and in a browser: the environments run in both
// (CLI and tests in Node, the lab in a Web Worker). This runs the same fingerprint in headless Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import type { BrowserContext } from 'playwright-core';
import { launchChromium } from '../../support/chromium';
import { envFingerprint } from '../../support/envFingerprint';

describe('environment determinism across platforms', () => {
  let server: ViteDevServer;
  let browser: BrowserContext;

  beforeAll(async () => {
    server = await createServer({ root: process.cwd(), logLevel: 'error', server: { port: 0, host: '127.0.0.1' } });
    await server.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('gives the same tasks, expert and demonstrator trajectories and observations in Chromium as in Node for the same seed', async () => {
    const address = server.httpServer?.address();
    if (!address || typeof address === 'string') throw new Error('vite dev server has no port');
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${address.port}/`);
    // a string, not a function: vitest rewrites dynamic imports inside test functions for Node
    const inBrowser = (await page.evaluate(
      "import('/test/support/envFingerprint.ts').then((m) => m.envFingerprint(11))",
    )) as Record<string, number>;
    expect(Object.keys(inBrowser)).toEqual(['shell', 'house', 'shop', 'shell-control']);
    expect(inBrowser).toEqual(envFingerprint(11));
  });
});
