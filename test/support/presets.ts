// The shipped presets (public/presets/NAME.json) as the `lookup` that core's loadPreset takes; undefined when absent.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const PRESET_DIR = join(__dirname, '../../public/presets');

export function lookupPreset(name: string): unknown {
  try {
    return JSON.parse(readFileSync(join(PRESET_DIR, `${name}.json`), 'utf8'));
  } catch {
    return undefined;
  }
}
