// A shipped preset (public/presets/NAME.json, its `extends` resolved by core's loadPreset) for the Node benchmarks in
// this folder. Their own reader, so that bench/ imports only core and engine: cli/ drives the bench page
// (bench/browser/protocol.ts), so bench importing cli/presetFiles.ts made the two folders import each other.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPreset, type Preset } from '../src/core/experiment/preset';

const PRESET_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'public', 'presets');

/** The preset `name`; a missing file is loadPreset's error naming the preset, a malformed one JSON.parse's. */
export function readShippedPreset(name: string): Preset {
  return loadPreset(name, (n) => {
    const path = join(PRESET_DIR, `${n}.json`);
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as unknown;
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return undefined;
      throw new Error(`${path}: ${(e as Error).message}`);
    }
  });
}
