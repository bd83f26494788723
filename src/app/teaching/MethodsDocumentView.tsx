// The method spec inside the app (offline): docs/METHODS.md, bundled as text by Vite and drawn as HTML, opened at the
// section an explanation links to (`#method?gate-alignment-progress`). Its formulas are typeset with KaTeX, as the
// explain panels' are (methodsTeX.ts holds their TeX).
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import methodsText from '../../../docs/METHODS.md?raw';
import { parseMethods, type Inline } from './methodsDocument';
import { METHODS_TEX } from './methodsTeX';
import { TeX } from './TeX';
import './teaching.css';

/** A code span: typeset when it is a formula, code when it is a key, a metric name or a path. */
function CodeSpan({ text }: { text: string }) {
  const tex = METHODS_TEX[text];
  return tex !== undefined ? <TeX tex={tex} /> : <code>{text}</code>;
}

function Inlines({ inline }: { inline: Inline[] }) {
  return (
    <>
      {inline.map((p, i) =>
        p.kind === 'code' ? (
          <CodeSpan key={i} text={p.text} />
        ) : p.kind === 'strong' ? (
          <strong key={i}>{p.text}</strong>
        ) : (
          p.text
        ),
      )}
    </>
  );
}

const methodsAnchorId = (anchor: string) => `methods-${anchor}`;

/** The section named in the hash: `#method?gate-decision` → "gate-decision". */
function hashAnchor(): string | null {
  const h = window.location.hash;
  const q = h.indexOf('?');
  return q < 0 ? null : decodeURIComponent(h.slice(q + 1)) || null;
}
const onHash = (change: () => void) => {
  window.addEventListener('hashchange', change);
  return () => window.removeEventListener('hashchange', change);
};

export function MethodsDocumentView() {
  const anchor = useSyncExternalStore(onHash, hashAnchor);
  const blocks = useMemo(() => parseMethods(methodsText), []);
  useEffect(() => {
    if (!anchor) return;
    const el = document.getElementById(methodsAnchorId(anchor));
    el?.scrollIntoView({ block: 'start' });
  }, [anchor]);
  return (
    <section className="view methods-doc" aria-label="the methods">
      {blocks.map((b, i) => {
        const id = b.anchor ? methodsAnchorId(b.anchor) : undefined;
        const target = b.anchor !== null && b.anchor === anchor ? 'target' : undefined;
        switch (b.kind) {
          case 'heading':
            return b.level === 1 ? (
              <h2 key={i} id={id}>
                {b.text}
              </h2>
            ) : (
              <h3 key={i} id={id}>
                {b.text}
              </h3>
            );
          case 'paragraph':
            return (
              <p key={i} id={id} className={target}>
                <Inlines inline={b.inline} />
              </p>
            );
          case 'list':
            return (
              <ul key={i} id={id} className={target}>
                {b.items.map((item, j) => (
                  <li key={j}>
                    <Inlines inline={item} />
                  </li>
                ))}
              </ul>
            );
          case 'formula': {
            const tex = METHODS_TEX[b.text];
            return tex !== undefined ? (
              <div key={i} id={id} className={`formula ${target ?? ''}`}>
                <TeX tex={tex} display />
              </div>
            ) : (
              <pre key={i} id={id} className={target}>
                {b.text}
              </pre>
            );
          }
        }
      })}
    </section>
  );
}
