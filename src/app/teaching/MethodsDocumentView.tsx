// The method spec inside the app (offline): docs/METHODS.md, bundled as text by Vite and drawn as HTML, opened at the
// section an explanation links to (`#method?gate-alignment-progress`).
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import methodsText from '../../../docs/METHODS.md?raw';
import { parseMethods, type Inline } from './methodsDocument';
import './teaching.css';

function Inlines({ inline }: { inline: Inline[] }) {
  return (
    <>
      {inline.map((p, i) =>
        p.kind === 'code' ? (
          <code key={i}>{p.text}</code>
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
          case 'formula':
            return (
              <pre key={i} id={id} className={target}>
                {b.text}
              </pre>
            );
        }
      })}
    </section>
  );
}
