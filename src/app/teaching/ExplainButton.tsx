// The "explain" affordance beside a chart or a control: a small button that opens a panel with what the quantity
// is, its formula (KaTeX), its sign convention, what to look for and the section of docs/METHODS.md it mirrors.
// Every text comes from explanations.ts. Escape or the close button shuts the panel.
import { lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import { explanation, methodsLink, type ExplanationId } from './explanations';
import { methodHref } from './MethodsView';

// KaTeX (script, CSS, fonts) loads with the first panel opened, not with the page
const TeX = lazy(() => import('./TeX').then((m) => ({ default: m.TeX })));

function ExplanationBody({ id }: { id: ExplanationId }) {
  const e = explanation(id);
  return (
    <>
      <p>{e.what}</p>
      {e.formula ? (
        <div className="formula">
          <Suspense fallback={<code>{e.formula}</code>}>
            <TeX tex={e.formula} display />
          </Suspense>
        </div>
      ) : null}
      {e.sign ? (
        <p>
          <strong>Sign / units.</strong> {e.sign}
        </p>
      ) : null}
      <p>
        <strong>Look for.</strong> {e.lookFor}
      </p>
      <p className="spec-link">
        Method: <a href={methodHref(e.anchor)}>{methodsLink(id)}</a>
      </p>
    </>
  );
}

export function ExplainButton({ id }: { id: ExplanationId }) {
  const [open, setOpen] = useState(false);
  // a button in the right half of the window opens its panel leftwards, so that the panel stays on screen
  const [leftwards, setLeftwards] = useState(false);
  const panelId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const e = explanation(id);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setOpen(false);
        button.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
  return (
    <span className="explain" data-explain={id}>
      <button
        ref={button}
        type="button"
        className="explain-button"
        aria-expanded={open}
        aria-controls={panelId}
        title={`explain ${e.title}`}
        onClick={() => {
          const box = button.current?.getBoundingClientRect();
          setLeftwards(box !== undefined && box.left > window.innerWidth / 2);
          setOpen((o) => !o);
        }}
      >
        {/* named by its content, not aria-label, so that getByLabel-style lookups of the control it sits beside
            (and assistive "label" lists) do not pick it up */}
        <span aria-hidden="true">?</span>
        <span className="visually-hidden">explain {e.title}</span>
      </button>
      {open ? (
        <div
          id={panelId}
          className={`explain-panel${leftwards ? ' leftwards' : ''}`}
          role="region"
          aria-label={`about ${e.title}`}
        >
          <div className="explain-head">
            <strong>{e.title}</strong>
            <button type="button" aria-label="close" onClick={() => setOpen(false)}>
              ×
            </button>
          </div>
          <ExplanationBody id={id} />
        </div>
      ) : null}
    </span>
  );
}
