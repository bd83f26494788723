// A drawn chart (the <svg> recharts renders inside a figure) as a standalone SVG file or a PNG: the SVG is cloned
// with its computed text styles inlined and a white background, then rasterised on a canvas at `scale`; `saveChart` downloads either.
import { saveBlob, saveText } from '../runs/download';

export type ChartFileFormat = 'svg' | 'png';

/** The chart's SVG as standalone markup (XML namespace, explicit size, white background). */
function chartSvgMarkup(figure: Element): string | null {
  const svg = figure.querySelector('svg.recharts-surface') ?? figure.querySelector('svg');
  if (!svg) return null;
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const { width, height } = svg.getBoundingClientRect();
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(Math.round(width)));
  clone.setAttribute('height', String(Math.round(height)));
  clone.setAttribute('font-family', 'system-ui, sans-serif');
  const bg = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', '#ffffff');
  clone.insertBefore(bg, clone.firstChild);
  const title = figure.querySelector('figcaption')?.textContent;
  if (title) {
    const t = document.createElementNS('http://www.w3.org/2000/svg', 'title');
    t.textContent = title;
    clone.insertBefore(t, clone.firstChild);
  }
  return new XMLSerializer().serializeToString(clone);
}

/** The chart as PNG bytes (a Blob), `scale` device pixels per CSS pixel. */
async function chartPng(figure: Element, scale = 2): Promise<Blob | null> {
  const markup = chartSvgMarkup(figure);
  const svg = figure.querySelector('svg');
  if (!markup || !svg) return null;
  const { width, height } = svg.getBoundingClientRect();
  return rasterise(markup, width, height, scale);
}

/**
 * Save a standalone figure (its SVG markup, e.g. core's lineFigureSvg) as `<fileStem>.svg`, or as `<fileStem>.png`
 * drawn at `scale` × its own size (960×540 at 2: a 1920×1080 slide).
 */
export function saveFigure(svg: string, width: number, height: number, fileStem: string, format: ChartFileFormat) {
  if (format === 'svg') return saveText(svg, `${fileStem}.svg`, 'image/svg+xml');
  void rasterise(svg, width, height, 2).then((png) => png && saveBlob(png, `${fileStem}.png`));
}

/** SVG markup as PNG bytes, `scale` pixels per SVG unit. */
async function rasterise(markup: string, width: number, height: number, scale: number): Promise<Blob | null> {
  const url = URL.createObjectURL(new Blob([markup], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the chart could not be rasterised'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round(height * scale));
    const ctx = canvas.getContext('2d');
    if (!ctx) return null;
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, width, height);
    return await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Save the chart drawn inside `figure` as `<fileStem>.svg` or `<fileStem>.png`; nothing when none is drawn there. */
export function saveChart(figure: Element | null, fileStem: string, format: ChartFileFormat): void {
  if (!figure) return;
  if (format === 'svg') {
    const svg = chartSvgMarkup(figure);
    if (svg) saveText(svg, `${fileStem}.svg`, 'image/svg+xml');
  } else {
    void chartPng(figure).then((png) => png && saveBlob(png, `${fileStem}.png`));
  }
}
