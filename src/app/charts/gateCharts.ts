// What the gate's three charts draw, wherever they appear (the Train view live, the Replay view from a log): K̄ₘ,
// ρ against δ and η against γ, each in its own colour, with the retirement step marked. The views add their own test
// ids, titles and notes.
import { fitRange } from '../../core/axisRange';
import type { SeriesPoint } from './downsampleSeries';
import type { MetricChartProps } from './MetricChart';
import { HUE } from './chartPalette';

/** The gate's series, one point per evaluated window (K̄ₘ) or evaluation (ρ, η). */
export interface GateSeries {
  windowMean: readonly SeriesPoint[];
  alignment: readonly SeriesPoint[];
  competence: readonly SeriesPoint[];
}

type GateChart = Pick<MetricChartProps, 'lines' | 'threshold' | 'marker' | 'yDomain'>;

/** The vertical marker at the step the teacher retired; none while it has not. */
export const retirementMarker = (step: number | null | undefined): MetricChartProps['marker'] =>
  step === null || step === undefined ? null : { x: step, label: `retired @ ${step}` };

/** `y` when it lies within one data range of the points (as MetricChart draws a threshold), else undefined. */
function nearData(y: number | undefined, points: readonly SeriesPoint[]): number | undefined {
  if (y === undefined || points.length === 0) return undefined;
  const ys = points.map((p) => p.y);
  const lo = Math.min(...ys);
  const hi = Math.max(...ys);
  const range = Math.max(hi - lo, Math.abs(hi), Math.abs(lo), 1e-9);
  return y >= lo - range && y <= hi + range ? y : undefined;
}

/**
 * The lines, thresholds and marker of the K̄ₘ, ρ and η charts. `thresholds` null (a live run before its config is
 * known) draws ρ and η without δ and γ.
 */
export function gateCharts(
  series: GateSeries,
  thresholds: { delta: number; gamma: number } | null,
  triggerStep: number | null | undefined,
): { windowMean: GateChart; alignment: GateChart; competence: GateChart } {
  const marker = retirementMarker(triggerStep);
  return {
    windowMean: { lines: [{ name: 'K̄ₘ', points: series.windowMean, color: HUE.blue }], marker },
    alignment: {
      lines: [{ name: 'ρ', points: series.alignment, color: HUE.violet }],
      threshold: thresholds && { y: thresholds.delta, label: `δ = ${thresholds.delta}` },
      marker,
    },
    competence: {
      lines: [{ name: 'η', points: series.competence, color: HUE.green }],
      threshold: thresholds && { y: thresholds.gamma, label: `γ = ${thresholds.gamma}` },
      marker,
      // η is read against γ: both on one scale fitted to them (a relaxed γ far off the data is left out)
      ...(series.competence.length > 0
        ? {
            yDomain: fitRange(
              series.competence.map((p) => p.y),
              nearData(thresholds?.gamma, series.competence),
            ),
          }
        : {}),
    },
  };
}
