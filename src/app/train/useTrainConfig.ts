// The Train form's configuration, resolved off the view: the form (trainForm.ts: kept across views, mirrored in the
// URL as #train?preset=…&seed=…), the preset it names from the catalog, its seed, and the config Start would run —
// built by pageConfig.ts as the queue builds its own — or the message that says why there is none yet.
import { useEffect, useMemo } from 'react';
import type { ExperimentConfig } from '../../core/experiment/config';
import { parseSeed } from '../../core/experiment/numberText';
import type { Preset } from '../../core/experiment/preset';
import { overrideLines } from '../overrideLines';
import { pageConfigOrError } from '../pageConfig';
import type { PresetCatalog } from './presetCatalog';
import { trainForm, useTrainForm } from './trainForm';
import { usePresetCatalog } from './usePresetCatalog';

export interface TrainConfig {
  catalog: PresetCatalog | null;
  preset: Preset | null;
  /** the config Start runs: null while the catalog loads or while a field is wrong */
  config: ExperimentConfig | null;
  /** the override lines the run is stored with */
  overrides: string[];
  seedError: string | null;
  configError: string | null;
  /** every message to show under the form, in order: the catalog, the link, the preset, the seed, the overrides */
  errors: string[];
}

export function useTrainConfig(): TrainConfig {
  const { catalog, error: catalogError } = usePresetCatalog();
  const presetName = useTrainForm((f) => f.preset);
  const seed = useTrainForm((f) => f.seed);
  const overrideText = useTrainForm((f) => f.overrides);
  const linkErrors = useTrainForm((f) => f.linkErrors);
  // once the catalog is in, a link's preset name is checked against it too
  useEffect(() => {
    if (catalog) trainForm.getState().applyLink(window.location.hash, catalog.names);
  }, [catalog]);
  const resolved = useMemo((): { preset: Preset | null; error: string | null } => {
    if (!catalog) return { preset: null, error: null };
    try {
      return { preset: catalog.load(presetName), error: null };
    } catch (e) {
      return { preset: null, error: e instanceof Error ? e.message : String(e) };
    }
  }, [catalog, presetName]);
  const seedRead = parseSeed(seed);
  const seedValue = 'error' in seedRead ? Number.NaN : seedRead.value;
  const seedError = 'error' in seedRead ? `seed: ${seedRead.error}` : null;
  const overrides = useMemo(() => overrideLines(overrideText), [overrideText]);
  // the preset, the seed, then `key=value` overrides (the CLI's --set), validated by the core
  const run = useMemo(
    (): { config: ExperimentConfig | null; error: string | null } =>
      !resolved.preset || seedError
        ? { config: null, error: null }
        : pageConfigOrError(resolved.preset.config, overrides, seedValue),
    [resolved.preset, seedError, seedValue, overrides],
  );
  const errors = [catalogError, ...linkErrors.map((m) => `link: ${m}`), resolved.error, seedError, run.error].filter(
    (m): m is string => Boolean(m),
  );
  return {
    catalog,
    preset: resolved.preset,
    config: run.config,
    overrides,
    seedError,
    configError: run.error,
    errors,
  };
}
