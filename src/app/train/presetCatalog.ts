// The presets the Train view offers: public/presets/index.json and each NAME.json, fetched from this app's own
// server, resolved and validated by the core (following "extends"). A sweep preset runs its base config here; the
// sweep itself is `npm run sweep`.
import { loadPreset, type Preset } from '../../core/experiment/preset';
import { appRoot } from '../appRoot';

export interface PresetCatalog {
  names: string[];
  /** resolve one preset; throws ConfigError naming the key at fault */
  load(name: string): Preset;
}

async function fetchJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: the server answered ${res.status}`);
  try {
    return await res.json();
  } catch (e) {
    throw new Error(`${url}: not valid JSON (${(e as Error).message})`);
  }
}

/** `base`: the app's root URL, ending in "/" (public/ is served there). */
export async function fetchPresetCatalog(base: string = appRoot().href): Promise<PresetCatalog> {
  const index = await fetchJson(`${base}presets/index.json`);
  if (!Array.isArray(index) || !index.every((n) => typeof n === 'string')) {
    throw new Error(`${base}presets/index.json: expected an array of preset names`);
  }
  const names = index as string[];
  const raw = new Map<string, unknown>();
  await Promise.all(names.map(async (n) => raw.set(n, await fetchJson(`${base}presets/${n}.json`))));
  return { names, load: (name) => loadPreset(name, (n) => raw.get(n), names) };
}
