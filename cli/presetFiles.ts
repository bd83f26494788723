// The shipped presets as the CLIs read them: public/presets/NAME.json under the repository root, parsed and
// resolved by core's loadPreset; a missing, unreadable or malformed preset is a user error naming the file.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileSystemError, PresetError } from '../src/core/errors';
import { loadPreset, PRESET_NAMES, type Preset } from '../src/core/experiment/preset';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const PRESET_DIR = join(ROOT, 'public', 'presets');

export function availablePresets(): string[] {
  try {
    return readdirSync(PRESET_DIR)
      .filter((f) => f.endsWith('.json') && f !== 'index.json')
      .map((f) => f.slice(0, -5))
      .sort();
  } catch {
    return [...PRESET_NAMES];
  }
}

export function readPreset(name: string): Preset {
  const lookup = (n: string): unknown => {
    if (!/^[a-z0-9-]+$/.test(n)) return undefined;
    const path = join(PRESET_DIR, `${n}.json`);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return undefined;
      throw FileSystemError.from(e, path, `reading preset ${n}`);
    }
    try {
      return JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (e) {
      throw new PresetError(`${path}: not valid JSON (${(e as Error).message.slice(0, 80)})`);
    }
  };
  if (!/^[a-z0-9-]+$/.test(name))
    throw new PresetError(
      `--preset "${name.slice(0, 40)}": not a preset name (available: ${availablePresets().join(', ')})`,
    );
  return loadPreset(name, lookup, availablePresets());
}
