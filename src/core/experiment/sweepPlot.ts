// One SVG figure per sweep: validation success vs student step for every sweep point, mean over seeds as
// a line with a ±95 % band (Student t over the seeds present at that step), each seed's retirement step as a
// triangle on the x axis in the point's colour, and a dashed line at 0.9·S_T in the colour of the first point with
// that S_T (the mean over its runs; the negative control's universe has its own).
// Pure string output (no DOM), so the sweep CLI writes it next to comparison.md.
import { ci95, type CurvePoint, TARGET_FRACTION } from './comparison';

export interface PlotSeries {
  label: string;
  runs: readonly { curve: readonly CurvePoint[]; triggerStep: number | null; teacherPerformance: number | null }[];
}

const W = 800;
const H = 360;
const M = { left: 52, right: 16, top: 36, bottom: 56 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#7f7f7f'];

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** mean and 95 % half-width per step over the runs that have that step */
export function seriesStats(runs: PlotSeries['runs']): { step: number; mean: number; half: number; n: number }[] {
  const byStep = new Map<number, number[]>();
  for (const r of runs) for (const p of r.curve) byStep.set(p.step, [...(byStep.get(p.step) ?? []), p.score]);
  return [...byStep.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([step, xs]) => {
      const n = xs.length;
      const mean = xs.reduce((a, b) => a + b, 0) / n;
      const std = n > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : 0;
      return { step, mean, half: ci95(std, n), n };
    });
}

export function validationPlotSvg(title: string, series: readonly PlotSeries[]): string {
  const stats = series.map((s) => seriesStats(s.runs));
  const maxStep = Math.max(1, ...stats.flatMap((st) => st.map((p) => p.step)));
  const x = (step: number): number => M.left + (step / maxStep) * (W - M.left - M.right);
  const y = (v: number): number => M.top + (1 - Math.min(1, Math.max(0, v))) * (H - M.top - M.bottom);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="18" text-anchor="middle" font-size="13">${esc(title)}</text>`,
  ];
  // axes and grid
  for (let v = 0; v <= 1.0001; v += 0.2) {
    out.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e5e5"/>`,
      `<text x="${M.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${Math.round(v * 100)}%</text>`,
    );
  }
  const tick = Math.max(1, Math.round(maxStep / 5 / 5) * 5);
  for (let s = 0; s <= maxStep; s += tick) {
    out.push(`<text x="${x(s).toFixed(1)}" y="${H - M.bottom + 16}" text-anchor="middle">${s}</text>`);
  }
  out.push(
    `<line x1="${M.left}" x2="${W - M.right}" y1="${y(0)}" y2="${y(0)}" stroke="#333"/>`,
    `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${y(0)}" stroke="#333"/>`,
    `<text x="${(M.left + W - M.right) / 2}" y="${H - M.bottom + 32}" text-anchor="middle">student step</text>`,
    `<text x="14" y="${(M.top + y(0)) / 2}" text-anchor="middle" transform="rotate(-90 14 ${(M.top + y(0)) / 2})">validation success</text>`,
  );
  // 0.9·S_T per series (dashed, in the series' colour), once per distinct level
  const drawn: number[] = [];
  series.forEach((s, i) => {
    const sts = s.runs.flatMap((r) => (r.teacherPerformance !== null ? [r.teacherPerformance] : []));
    if (!sts.length) return;
    const target = (TARGET_FRACTION * sts.reduce((a, b) => a + b, 0)) / sts.length;
    if (drawn.some((t) => Math.abs(t - target) < 0.005)) return;
    drawn.push(target);
    const c = COLORS[i % COLORS.length] as string;
    out.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${y(target).toFixed(1)}" y2="${y(target).toFixed(1)}" stroke="${c}" stroke-opacity="0.7" stroke-dasharray="5,4"/>`,
      `<text x="${W - M.right - 4}" y="${(y(target) - 4).toFixed(1)}" text-anchor="end" fill="${c}">${TARGET_FRACTION}·S_T = ${target.toFixed(2)}</text>`,
    );
  });
  // drawn last-first, so the first point (the default demo) lies on top where curves coincide
  const legend: string[] = [];
  let lx = M.left;
  series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length] as string;
    const retired = s.runs.filter((r) => r.triggerStep !== null).length;
    const text = `${s.label} (${s.runs.length} seeds, ${retired} retired)`;
    legend.push(
      `<rect x="${lx}" y="${H - 22}" width="12" height="8" fill="${c}"/>`,
      `<text x="${lx + 16}" y="${H - 14}">${esc(text)}</text>`,
    );
    lx += 22 + 5.5 * text.length;
  });
  [...series.keys()].reverse().forEach((i) => {
    const s = series[i] as PlotSeries;
    const c = COLORS[i % COLORS.length] as string;
    const st = stats[i] ?? [];
    if (st.length > 0) {
      const upper = st.map((p) => `${x(p.step).toFixed(1)},${y(p.mean + p.half).toFixed(1)}`);
      const lower = [...st].reverse().map((p) => `${x(p.step).toFixed(1)},${y(p.mean - p.half).toFixed(1)}`);
      out.push(`<polygon points="${[...upper, ...lower].join(' ')}" fill="${c}" fill-opacity="0.15" stroke="none"/>`);
      out.push(
        `<polyline points="${st.map((p) => `${x(p.step).toFixed(1)},${y(p.mean).toFixed(1)}`).join(' ')}" fill="none" stroke="${c}" stroke-width="2"/>`,
      );
    }
    for (const r of s.runs) {
      if (r.triggerStep === null) continue;
      const tx = x(r.triggerStep);
      const ty = y(0);
      out.push(`<path d="M${tx.toFixed(1)},${(ty - 9).toFixed(1)} l-5,9 l10,0 z" fill="${c}" fill-opacity="0.8"/>`);
    }
  });
  out.push(...legend, '</svg>');
  return `${out.join('\n')}\n`;
}
