// The configurations a page form starts: the preset's, with the form's seed (Train) and its `key=value` overrides
// applied as the CLI's --set does, refused where one names a file the tab cannot fetch. Train's Start and the queue's
// Add both build theirs here, so each form accepts exactly what the other does and says so in the same words.
import { applyOverrides, ConfigError, type ExperimentConfig } from '../core/experiment/config';
import { configFileReferenceErrors } from '../core/experiment/fileReference';

/** `base` with `seed` (when given) and `overrides` applied; throws ConfigError naming the key at fault. */
export function pageConfig(base: ExperimentConfig, overrides: readonly string[], seed?: number): ExperimentConfig {
  const config = applyOverrides(seed === undefined ? base : { ...base, seed }, overrides);
  assertFetchable([config], 'overrides');
  return config;
}

/** Throws ConfigError (from `source`) when any of `configs` names a file outside the app's origin, each key once. */
export function assertFetchable(configs: readonly ExperimentConfig[], source: string): void {
  const offOrigin = [...new Set(configs.flatMap((c) => configFileReferenceErrors(c, 'app')))];
  if (offOrigin.length > 0) throw new ConfigError(offOrigin, source);
}

/** pageConfig's answer for a form: the config, or the message to show under it (`overrides: …`). */
export function pageConfigOrError(
  base: ExperimentConfig,
  overrides: readonly string[],
  seed?: number,
): { config: ExperimentConfig; error: null } | { config: null; error: string } {
  try {
    return { config: pageConfig(base, overrides, seed), error: null };
  } catch (e) {
    const detail = e instanceof ConfigError ? e.messages.join('; ') : e instanceof Error ? e.message : String(e);
    return { config: null, error: `overrides: ${detail}` };
  }
}
