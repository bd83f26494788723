// Debian's headless Chromium as the lab drives it (the real-browser tests and `npm run bench:browser`): the flags
// that expose WebGPU on SwiftShader (docs/platform-notes.md) (--enable-unsafe-webgpu) and to keep Chromium off the network.
// Never add --disable-software-rasterizer: it removes WebGPU and WebGL.
export const CHROMIUM_PATH = '/usr/lib/chromium/chromium';

export const CHROMIUM_FLAGS: readonly string[] = [
  '--enable-unsafe-webgpu',
  '--no-sandbox',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
