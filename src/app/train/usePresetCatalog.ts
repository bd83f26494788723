// The preset catalog as a React hook, fetched once per page and shared by the run form and the queue form.
import { useEffect, useState } from 'react';
import { fetchPresetCatalog, type PresetCatalog } from './presetCatalog';

let shared: Promise<PresetCatalog> | null = null;

export function usePresetCatalog(): { catalog: PresetCatalog | null; error: string | null } {
  const [state, setState] = useState<{ catalog: PresetCatalog | null; error: string | null }>({
    catalog: null,
    error: null,
  });
  useEffect(() => {
    let live = true;
    shared ??= fetchPresetCatalog();
    shared.then(
      (catalog) => live && setState({ catalog, error: null }),
      (e: unknown) => {
        shared = null;
        if (live) setState({ catalog: null, error: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => {
      live = false;
    };
  }, []);
  return state;
}
