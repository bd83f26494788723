// The pure arithmetic behind the metric charts' reading aids: which points a log-scale y axis can draw (and its
// range), the x range a drag selects, the values under the pointer (hovered or pinned), and the plotted values as a
// table (the charts' text alternative). No React, no recharts: the charts call these with their lines' points.
import type { SeriesPoint } from './downsampleSeries';

/** The points a log axis can draw (y > 0) and how many it cannot (y ≤ 0), of one or several lines. */
export function positivePart(points: readonly SeriesPoint[]): { points: SeriesPoint[]; dropped: number } {
  const kept = points.filter((p) => p.y > 0);
  return { points: kept, dropped: points.filter((p) => Number.isFinite(p.y)).length - kept.length };
}

/**
 * A log axis's [lo, hi]: out to the powers of ten around the positive values (0.1 … 1 for values in 0.2 … 0.9),
 * a decade either side of a single value; null when no value is positive.
 */
export function logRange(values: readonly number[]): [number, number] | null {
  const pos = values.filter((v) => v > 0 && Number.isFinite(v));
  if (pos.length === 0) return null;
  const lo = 10 ** Math.floor(Math.log10(Math.min(...pos)));
  let hi = 10 ** Math.ceil(Math.log10(Math.max(...pos)));
  if (hi <= lo) hi = lo * 10;
  return [Number(lo.toPrecision(12)), Number(hi.toPrecision(12))];
}

/** The x range a drag from `a` to `b` selects, in order; null for a click (no width) or an unknown end. */
export function dragRange(a: number | null, b: number | null): [number, number] | null {
  if (a === null || b === null || !Number.isFinite(a) || !Number.isFinite(b) || a === b) return null;
  return a < b ? [a, b] : [b, a];
}

/** Each line's value at step `x`: its point nearest to x (ties: the earlier), null where a line has no points. */
export function valuesAt(
  lines: readonly { name: string; points: readonly SeriesPoint[] }[],
  x: number,
): { name: string; x: number; y: number }[] {
  return lines.flatMap((l) => {
    let best: SeriesPoint | null = null;
    for (const p of l.points) if (best === null || Math.abs(p.x - x) < Math.abs(best.x - x)) best = p;
    return best === null ? [] : [{ name: l.name, x: best.x, y: best.y }];
  });
}

/**
 * The lines as one table: a row per step any line has (ascending), a column per line, null where a line has no
 * point at that step.
 */
export function seriesTable(lines: readonly { name: string; points: readonly SeriesPoint[] }[]): {
  columns: string[];
  rows: { x: number; values: (number | null)[] }[];
} {
  const byX = new Map<number, (number | null)[]>();
  lines.forEach((l, j) => {
    for (const p of l.points) {
      const row =
        byX.get(p.x) ??
        byX
          .set(
            p.x,
            lines.map(() => null),
          )
          .get(p.x)!;
      row[j] = p.y;
    }
  });
  return {
    columns: lines.map((l) => l.name),
    rows: [...byX.entries()].sort((a, b) => a[0] - b[0]).map(([x, values]) => ({ x, values })),
  };
}
