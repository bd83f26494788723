// A chart as a file: a standalone figure's SVG markup (core's lineFigure: title, axis labels, legend) saved as SVG,
// or rasterised on a canvas at 2× and saved as PNG.
import { saveBlob, saveText } from '../files/download';

export type ChartFileFormat = 'svg' | 'png';

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
