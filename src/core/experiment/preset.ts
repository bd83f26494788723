// Presets: small validated JSON files in public/presets/ (shared by the CLI and the browser).
// File format (unknown keys rejected):
//   { "description": "...", "extends": "other-preset"?, "config": { partial ExperimentConfig }, "sweep": SweepSpec? }
// A preset's config is merged over its parent's (or the defaults); `sweep` makes it a sweep preset.
// Reading files is the caller's job (Node fs or fetch): this module receives parsed JSON through a lookup.
import { z } from 'zod';
import { ConfigError, DEFAULT_CONFIG, resolveConfig, type ExperimentConfig } from './config';
import { parseSweepSpec, type SweepSpec } from './sweep';

/** The presets shipped in public/presets/ (index.json lists the same names; a test keeps them in sync). */
export const PRESET_NAMES = [
  'smoke',
  'retire-shell',
  'retire-house',
  'retire-shop',
  'opd-shell',
  'grpo-shell',
  'control-shell',
  'opd-house',
  'grpo-house',
  'opd-shop',
  'grpo-shop',
  'actobs-vs-actionsft',
  'schedules',
  'estimators',
  'distill-forms',
  'teacher-shell',
  'teacher-house',
  'teacher-shop',
] as const;

/** What a preset name (and a preset's "extends") may be: the file name of public/presets/NAME.json. */
export const PRESET_NAME = /^[a-z0-9][a-z0-9-]*$/;

const presetFileSchema = z.strictObject({
  description: z.string().min(1),
  extends: z.string().optional(),
  config: z.record(z.string(), z.unknown()),
  sweep: z.unknown().optional(),
});

export interface Preset {
  name: string;
  description: string;
  config: ExperimentConfig;
  sweep: SweepSpec | null;
}

/** Returns the parsed JSON of preset `name`, or undefined when there is no such preset. */
export type PresetLookup = (name: string) => unknown;

function unknownPresetMessage(name: string, available: readonly string[]): string {
  return `unknown preset "${name}" (available: ${available.join(', ')})`;
}

/** Resolve a preset (following `extends`), validate its config and sweep spec. Throws ConfigError. */
export function loadPreset(
  name: string,
  lookup: PresetLookup,
  available: readonly string[] = PRESET_NAMES,
  seen: string[] = [],
): Preset {
  // a preset is named, never located: a name is a file of public/presets/, not a path or a URL
  if (!PRESET_NAME.test(name))
    throw new ConfigError(
      [
        `preset name ${JSON.stringify(name.slice(0, 60))}: expected lower-case letters, digits and "-" (a preset of public/presets/, not a path or URL)`,
      ],
      seen.length > 0 ? `preset ${seen[seen.length - 1]} "extends"` : 'preset',
    );
  if (seen.includes(name))
    throw new ConfigError([`preset "extends" cycle: ${[...seen, name].join(' → ')}`], `preset ${name}`);
  const raw = lookup(name);
  if (raw === undefined) throw new ConfigError([unknownPresetMessage(name, available)], 'preset');
  const file = presetFileSchema.safeParse(raw);
  if (!file.success) {
    throw new ConfigError(
      file.error.issues.map((i) =>
        i.code === 'unrecognized_keys'
          ? `unknown key(s) ${i.keys.map((k) => `"${k}"`).join(', ')} (valid keys: description, extends, config, sweep)`
          : `${i.path.map(String).join('.') || '(file)'}: ${i.message}`,
      ),
      `preset ${name}`,
    );
  }
  const base = file.data.extends
    ? loadPreset(file.data.extends, lookup, available, [...seen, name]).config
    : DEFAULT_CONFIG;
  const config = resolveConfig({ name, ...file.data.config }, base, `preset ${name}`);
  const sweep = file.data.sweep === undefined ? null : parseSweepSpec(file.data.sweep, config, `preset ${name}`);
  return { name, description: file.data.description, config, sweep };
}
