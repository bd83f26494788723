// The Method view (docs/METHODS.md inside the app), loaded when it is first shown rather than with the page; and the
// in-app link to one of its sections, which the explain panels use.
import { lazy, Suspense } from 'react';

const Document = lazy(() => import('./MethodsDocumentView').then((m) => ({ default: m.MethodsDocumentView })));

/** The in-app link to a section of the method: `#method?gate-decision`. */
export const methodHref = (anchor: string) => `#method?${anchor}`;

export function MethodsView() {
  return (
    <Suspense fallback={<p className="muted">Loading the method…</p>}>
      <Document />
    </Suspense>
  );
}
