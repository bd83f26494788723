// Chart series: points {x, y} with finite coordinates, reduced to at most `maxPoints` with LTTB (largest triangle
// three buckets, the `downsample` package) so a 100k-step log draws as fast as a 100-step one and keeps its shape.
import { createLTTB } from 'downsample';

export interface SeriesPoint {
  readonly x: number;
  readonly y: number;
}

/** Default budget of points per drawn line: about one per horizontal pixel pair of a chart. */
const CHART_POINTS = 400;

const lttb = createLTTB<SeriesPoint>({ x: 'x', y: 'y' });

/** Drop points whose x or y is not a finite number (null, NaN, ±Infinity are gaps in a log, not values). */
export function finitePoints(points: readonly { x: number; y: number | null | undefined }[]): SeriesPoint[] {
  const out: SeriesPoint[] = [];
  for (const p of points) {
    if (typeof p.y === 'number' && Number.isFinite(p.y) && Number.isFinite(p.x)) out.push({ x: p.x, y: p.y });
  }
  return out;
}

/** At most `maxPoints` points (≥ 3), keeping the first and last; returns the input when it is short enough. */
export function downsampleSeries(points: readonly SeriesPoint[], maxPoints: number = CHART_POINTS): SeriesPoint[] {
  const budget = Math.max(3, Math.floor(maxPoints));
  if (points.length <= budget) return [...points];
  return Array.from(lttb(points as SeriesPoint[], budget));
}
