// Pins what a smoke run computes: the sha256 of every event the trainer emits on the smoke preset (seed 0), with
// wall-clock fields removed. A refactor that changes no behaviour keeps the hash bit for bit; a change that moves
// any metric, gate decision, checkpoint name or summary field breaks it (then re-pin only with a stated reason).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/core/experiment/config';
import { loadPreset } from '../../../src/core/experiment/preset';
import { initBackend } from '../../../src/engine/backend';
import { lookupPreset } from '../../support/presets';
import { runTrainer } from '../helpers/runTrainer';

/** wall-clock fields: the only ones allowed to differ between two runs of the same seed */
const CLOCK_KEYS = (k: string): boolean => k.startsWith('time/') || k === 'wallSeconds' || k === 'stepMs';

async function smokeHash(backend: 'cpu' | 'wasm'): Promise<string> {
  await initBackend(backend);
  const cfg = resolveConfig({ runtime: { keepCheckpoints: 0 } }, loadPreset('smoke', lookupPreset).config);
  const run = await runTrainer(cfg);
  const text = JSON.stringify(run.events, (k, v: unknown) => (CLOCK_KEYS(k) ? undefined : v));
  return createHash('sha256').update(text).digest('hex');
}

describe('the smoke run is pinned bit for bit', () => {
  it('emits the same events on the cpu backend as when the hash was pinned', async () => {
    expect(await smokeHash('cpu')).toBe('3856d3d8ae607cae2d33ba9c3971e7f4c7eaa9542396452c5e171d61124a2b87');
  });
  it('emits the same events on the wasm backend as when the hash was pinned', async () => {
    expect(await smokeHash('wasm')).toBe('a6a6e7ced620da8c4cf7d919defe2bb81ee991b6fcf489d022691538ebded513');
  });
});
