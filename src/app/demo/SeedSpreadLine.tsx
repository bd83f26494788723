// The lesson's seed among the reporting seeds, one line beside the recorded story: "this seed: +16.7; ten seeds:
// +3.6 ± 11.6 (95 % interval; no measurable difference)". Its numbers come from public/demo/seed-spread.json (made
// from the held-out page), so the recording is never shown as if it were the typical seed.
import { useEffect, useState } from 'react';
import { type SeedSpread, seedCount, seedSpreadText } from '../../core/experiment/seedSpread';
import { demoSeedSpread } from './demoRecordings';

/** The spread once loaded; null while loading or when the file is missing (the story still plays). */
export function useSeedSpread(): SeedSpread | null {
  const [spread, setSpread] = useState<SeedSpread | null>(null);
  useEffect(() => {
    let live = true;
    demoSeedSpread().then(
      (s) => live && setSpread(s),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  return spread;
}

export function SeedSpreadLine() {
  const spread = useSeedSpread();
  if (!spread) return null;
  return (
    <p className="seed-spread" data-testid="overview-seed-spread">
      {spread.comparison} (test success, points) — {seedSpreadText(spread)}.{' '}
      <span className="muted">
        Seed {spread.seed} is the recording; the {seedCount(spread.n)} are the held-out reporting seeds ({spread.source}
        ).
      </span>
    </p>
  );
}
