// A line figure that reads on its own, as standalone SVG markup: title, axis labels, one line per series (optionally
// dashed) with an optional band, vertical markers (a run's retirement) and a legend naming every series and marker
// kind, plus notes under it. Sized for a 16:9 slide (960×540 user units; the PNG export draws it at 2×) and legible
// in a paper column. Pure string output (no DOM): the compare view exports it, a test reads it.

export interface FigureSeries {
  readonly label: string;
  readonly color: string;
  readonly points: readonly { readonly x: number; readonly y: number }[];
  /** [lo, hi] per x, drawn as a translucent band under the line */
  readonly band?: readonly { readonly x: number; readonly lo: number; readonly hi: number }[];
  /** SVG dash pattern, e.g. "8 5": a series drawn over an identical one stays visible */
  readonly dash?: string;
}

export interface FigureMarker {
  readonly x: number;
  readonly color: string;
  /** the legend's words for this kind of marker, e.g. "retirement" (one legend entry per distinct label) */
  readonly label: string;
}

/** A horizontal reference line (a threshold such as δ or γ), dashed, named in the legend. */
export interface FigureThreshold {
  readonly y: number;
  readonly color: string;
  readonly label: string;
}

export interface LineFigure {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly FigureSeries[];
  readonly markers?: readonly FigureMarker[];
  readonly thresholds?: readonly FigureThreshold[];
  /** y range; from the data when absent */
  readonly yDomain?: readonly [number, number];
  /** lines of text under the legend (e.g. "identical until step 40") */
  readonly notes?: readonly string[];
}

export const FIGURE_WIDTH = 960;
export const FIGURE_HEIGHT = 540;
const LEGEND_ROW = 22;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (v: number) => String(Number(v.toPrecision(4)));

/** About five round tick values covering [lo, hi]: steps of 1, 2 or 5 × 10^k. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

function dataRange(values: readonly number[]): [number, number] {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return [0, 1];
  const lo = Math.min(...finite);
  const hi = Math.max(...finite);
  if (hi > lo) return [lo, hi];
  const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1;
  return [lo - pad, hi + pad];
}

/**
 * A colour as a figure outside the page can paint it: a theme variable with a fallback (`var(--name, #hex)`, as the
 * app's charts name their colours) becomes its fallback, the light theme's value; any other colour is kept.
 */
export const figureColor = (color: string): string => /^var\(--[\w-]+,\s*([^)]+)\)$/.exec(color)?.[1]?.trim() ?? color;

/** a colour for an SVG attribute: the theme variable resolved, then escaped */
const paint = (color: string) => esc(figureColor(color));

export function lineFigureSvg(input: LineFigure): string {
  const fig: LineFigure = {
    ...input,
    series: input.series.map((s) => ({ ...s, color: paint(s.color) })),
    markers: input.markers?.map((m) => ({ ...m, color: paint(m.color) })),
    thresholds: input.thresholds?.map((t) => ({ ...t, color: paint(t.color) })),
  };
  const markers = fig.markers ?? [];
  const notes = fig.notes ?? [];
  const thresholds = fig.thresholds ?? [];
  const markerKinds = [...new Map(markers.map((m) => [m.label, m])).values()];
  const legendItems = fig.series.length + markerKinds.length + thresholds.length;
  // legend in rows of up to three entries under the plot, then the notes
  const legendRows = Math.ceil(legendItems / 3);
  const M = { left: 78, right: 24, top: 52, bottom: 64 + legendRows * LEGEND_ROW + notes.length * 20 };
  const W = FIGURE_WIDTH;
  const H = FIGURE_HEIGHT;
  const xs = [...fig.series.flatMap((s) => s.points.map((p) => p.x)), ...markers.map((m) => m.x)];
  const [x0, x1] = dataRange(xs);
  const [y0, y1] =
    fig.yDomain ??
    dataRange([
      ...fig.series.flatMap((s) => [...s.points.map((p) => p.y), ...(s.band ?? []).flatMap((b) => [b.lo, b.hi])]),
      ...thresholds.map((t) => t.y),
    ]);
  const px = (x: number) => M.left + ((x - x0) / (x1 - x0)) * (W - M.left - M.right);
  const py = (y: number) => M.top + (1 - (Math.min(y1, Math.max(y0, y)) - y0) / (y1 - y0)) * (H - M.top - M.bottom);
  const plotBottom = H - M.bottom;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="15">`,
    `<title>${esc(fig.title)}</title>`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${W / 2}" y="30" text-anchor="middle" font-size="19" font-weight="600" class="figure-title">${esc(fig.title)}</text>`,
  ];
  for (const v of niceTicks(y0, y1)) {
    const y = py(v).toFixed(1);
    out.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${y}" y2="${y}" stroke="#e5e7eb"/>`,
      `<text x="${M.left - 8}" y="${(Number(y) + 5).toFixed(1)}" text-anchor="end" font-size="13">${num(v)}</text>`,
    );
  }
  for (const v of niceTicks(x0, x1, 8)) {
    out.push(
      `<text x="${px(v).toFixed(1)}" y="${plotBottom + 20}" text-anchor="middle" font-size="13">${num(v)}</text>`,
    );
  }
  out.push(
    `<line x1="${M.left}" x2="${W - M.right}" y1="${plotBottom}" y2="${plotBottom}" stroke="#374151"/>`,
    `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${plotBottom}" stroke="#374151"/>`,
    `<text x="${(M.left + W - M.right) / 2}" y="${plotBottom + 42}" text-anchor="middle" class="axis-label">${esc(fig.xLabel)}</text>`,
    `<text transform="translate(20 ${(M.top + plotBottom) / 2}) rotate(-90)" text-anchor="middle" class="axis-label">${esc(fig.yLabel)}</text>`,
  );
  for (const s of fig.series) {
    if (s.band && s.band.length > 1) {
      const upper = s.band.map((b) => `${px(b.x).toFixed(1)},${py(b.hi).toFixed(1)}`);
      const lower = [...s.band].reverse().map((b) => `${px(b.x).toFixed(1)},${py(b.lo).toFixed(1)}`);
      out.push(`<polygon points="${[...upper, ...lower].join(' ')}" fill="${s.color}" fill-opacity="0.15"/>`);
    }
  }
  for (const s of fig.series) {
    if (s.points.length === 0) continue;
    const d = s.points.map((p, i) => `${i ? 'L' : 'M'}${px(p.x).toFixed(1)} ${py(p.y).toFixed(1)}`).join('');
    out.push(
      `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2.5"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}><title>${esc(s.label)}</title></path>`,
    );
  }
  for (const t of thresholds) {
    const y = py(t.y).toFixed(1);
    out.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${y}" y2="${y}" stroke="${t.color}" stroke-dasharray="8 5"/>`,
    );
  }
  for (const m of markers) {
    const x = px(m.x).toFixed(1);
    out.push(
      `<line x1="${x}" x2="${x}" y1="${M.top}" y2="${plotBottom}" stroke="${m.color}" stroke-dasharray="5 4"/>`,
      `<path d="M${x} ${plotBottom}l-6 10h12z" fill="${m.color}"><title>${esc(`${m.label} at step ${m.x}`)}</title></path>`,
    );
  }
  // the legend: each series' line (dashed where drawn dashed), then each kind of marker
  const colW = (W - M.left - M.right) / 3;
  const legendTop = plotBottom + 62;
  const entry = (i: number) => ({ x: M.left + (i % 3) * colW, y: legendTop + Math.floor(i / 3) * LEGEND_ROW });
  fig.series.forEach((s, i) => {
    const { x, y } = entry(i);
    out.push(
      `<line x1="${x}" x2="${x + 28}" y1="${y - 5}" y2="${y - 5}" stroke="${s.color}" stroke-width="3"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
      `<text x="${x + 36}" y="${y}" class="legend-entry">${esc(s.label)}</text>`,
    );
  });
  markerKinds.forEach((m, j) => {
    const { x, y } = entry(fig.series.length + j);
    out.push(
      `<line x1="${x + 14}" x2="${x + 14}" y1="${y - 14}" y2="${y + 2}" stroke="#374151" stroke-dasharray="4 3"/>`,
      `<path d="M${x + 14} ${y - 4}l-5 8h10z" fill="#374151"/>`,
      `<text x="${x + 36}" y="${y}" class="legend-entry">${esc(m.label)} (dashed, in the series’ colour)</text>`,
    );
  });
  thresholds.forEach((t, j) => {
    const { x, y } = entry(fig.series.length + markerKinds.length + j);
    out.push(
      `<line x1="${x}" x2="${x + 28}" y1="${y - 5}" y2="${y - 5}" stroke="${t.color}" stroke-width="2" stroke-dasharray="8 5"/>`,
      `<text x="${x + 36}" y="${y}" class="legend-entry">${esc(t.label)}</text>`,
    );
  });
  notes.forEach((n, k) => {
    out.push(
      `<text x="${M.left}" y="${legendTop + legendRows * LEGEND_ROW + k * 20}" font-size="13" fill="#4b5563" class="figure-note">${esc(n)}</text>`,
    );
  });
  out.push('</svg>');
  return out.join('\n');
}
