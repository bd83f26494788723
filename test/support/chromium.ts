// Launches Debian's Chromium headless for real-browser tests (docs/platform-notes.md): WebGPU on SwiftShader needs
// --enable-unsafe-webgpu; never pass --disable-software-rasterizer (it removes WebGPU and WebGL).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../../cli/chromium';

export { CHROMIUM_PATH };

export async function launchChromium(): Promise<BrowserContext> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'retirelab-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_FLAGS],
  });
  // Chromium may still be flushing its profile when 'close' fires: best-effort removal of a temp directory.
  context.on('close', () => {
    try {
      rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // left in the OS temp directory
    }
  });
  // the dev server builds a page on its first load: under load that alone can take a minute
  context.setDefaultNavigationTimeout(120_000);
  return context;
}
