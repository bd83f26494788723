// A TeX formula typeset by KaTeX (bundled with its CSS and fonts by Vite: no CDN). A formula KaTeX cannot parse is
// shown as its source in red instead of breaking the page.
import katex from 'katex';
import 'katex/dist/katex.min.css';
import { useMemo } from 'react';

export function TeX({ tex, display = false }: { tex: string; display?: boolean }) {
  const html = useMemo(
    () => katex.renderToString(tex, { displayMode: display, throwOnError: false, output: 'htmlAndMathml' }),
    [tex, display],
  );
  return <span className="tex" data-testid="tex" dangerouslySetInnerHTML={{ __html: html }} />;
}
