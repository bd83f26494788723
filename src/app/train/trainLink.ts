// The Train view's shareable state in the URL hash: `#train?preset=smoke&seed=5&backend=wasm&set=key=value&set=…`.
// Each field is checked as the form checks it — the seed and every `set` by the config's own schema (core
// resolveConfig / parseOverride), the preset against the catalog, the backend against the choices — and every
// problem names its field, so a bad link says what is wrong instead of silently falling back.
import { overrideLines } from '../overrideLines';
import { ConfigError, DEFAULT_CONFIG, parseOverride, resolveConfig } from '../../core/experiment/config';
import { configFileReferenceErrors } from '../../core/experiment/fileReference';
import { parseSeed } from '../../core/experiment/numberText';
import { BACKEND_CHOICES, type BackendChoice, isOneOf } from '../../core/methodVocabulary';

export interface TrainForm {
  preset: string;
  backend: BackendChoice;
  /** as typed (validated when a run is built) */
  seed: string;
  /** key=value lines, as typed */
  overrides: string;
}

export const DEFAULT_FORM: TrainForm = { preset: 'retire-shell', backend: 'auto', seed: '0', overrides: '' };

export interface ParsedLink {
  /** the form the link describes (fields it leaves out keep their defaults) */
  form: TrainForm;
  /** one line per wrong field, naming it ("seed: …", "set student.x=1: …") */
  errors: string[];
}

const KNOWN = new Set(['preset', 'seed', 'backend', 'set']);

/** The view name and query of a hash: "#train?preset=smoke" → ["train", "preset=smoke"]. */
export function splitHash(hash: string): { view: string; query: string } {
  const h = hash.replace(/^#\/?/, '');
  const q = h.indexOf('?');
  return q < 0 ? { view: h, query: '' } : { view: h.slice(0, q), query: h.slice(q + 1) };
}

const messagesOf = (e: unknown): string[] =>
  e instanceof ConfigError ? e.messages : [e instanceof Error ? e.message : String(e)];

/** Parse a Train link's query. `presets`: the catalog's names (null while it loads: the preset is not checked). */
export function parseTrainLink(query: string, presets: readonly string[] | null): ParsedLink {
  const params = new URLSearchParams(query);
  const errors: string[] = [];
  const form: TrainForm = { ...DEFAULT_FORM };
  for (const key of new Set(params.keys())) {
    if (!KNOWN.has(key)) errors.push(`${key}: unknown link field (valid: preset, seed, backend, set)`);
    // a field of one value given twice is refused, never read as its first (or last) value
    const values = params.getAll(key);
    if (key !== 'set' && KNOWN.has(key) && values.length > 1)
      errors.push(
        `${key}: given ${values.length} times in the link (${values.map((v) => JSON.stringify(v.slice(0, 40))).join(', ')}): give it once`,
      );
  }
  const preset = params.get('preset');
  if (preset !== null) {
    form.preset = preset;
    if (presets && !presets.includes(preset))
      errors.push(`preset: unknown preset "${preset}" (available: ${presets.join(', ')})`);
  }
  const seed = params.get('seed');
  if (seed !== null) {
    form.seed = seed;
    const read = parseSeed(seed);
    if ('error' in read) errors.push(`seed: ${read.error}`);
  }
  const backend = params.get('backend');
  if (backend !== null) {
    if (isOneOf(BACKEND_CHOICES, backend)) form.backend = backend;
    else errors.push(`backend: expected one of ${BACKEND_CHOICES.join(', ')}, got "${backend}"`);
  }
  const sets = params.getAll('set');
  for (const s of sets) {
    try {
      const cfg = resolveConfig(parseOverride(s), DEFAULT_CONFIG, 'link');
      // in the tab a file is named inside the app's origin (the schema already refuses any URL)
      errors.push(...configFileReferenceErrors(cfg, 'app').map((m) => `set ${s}: ${m}`));
    } catch (e) {
      errors.push(...messagesOf(e).map((m) => `set ${s}: ${m}`));
    }
  }
  form.overrides = sets.join('\n');
  return { form, errors };
}

/** The link of a form (only fields that differ from the defaults, except the preset, which is always named). */
export function formatTrainLink(form: TrainForm): string {
  const params = new URLSearchParams();
  params.set('preset', form.preset);
  if (form.seed !== DEFAULT_FORM.seed) params.set('seed', form.seed);
  if (form.backend !== DEFAULT_FORM.backend) params.set('backend', form.backend);
  for (const line of overrideLines(form.overrides)) params.append('set', line);
  // keep "=" and "," readable in set=key=value
  return `#train?${params.toString().replace(/%3D/g, '=').replace(/%2C/g, ',')}`;
}
