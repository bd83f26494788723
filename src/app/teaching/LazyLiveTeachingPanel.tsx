// The Train view's teaching panels (gate inspector, what-if, trajectory viewer), loaded once a run exists rather than
// with the page.
import { lazy, Suspense } from 'react';
import { useRun } from '../train/liveRun';

const Panel = lazy(() => import('./LiveTeachingPanel').then((m) => ({ default: m.LiveTeachingPanel })));

export function LiveTeachingPanel() {
  const started = useRun((s) => s.status !== 'idle');
  if (!started) return null;
  return (
    <Suspense fallback={null}>
      <Panel />
    </Suspense>
  );
}
