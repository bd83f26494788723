// One metric against the training step: a line, an optional horizontal threshold (δ, γ) and an optional vertical
// marker (the step the teacher retired). Series arrive already downsampled (downsampleSeries.ts). Read as researchers
// read TensorBoard: the view's smoothing (raw curve faint behind), log-scale y and drag-to-zoom x range
// (chartView.tsx), the values under the pointer beside the chart (a click pins them), and the plotted values as a
// table for anyone who cannot see the chart (the SVG itself is named for screen readers).
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { memo, useMemo } from 'react';
import { saveFigure, type ChartFileFormat } from './chartExport';
import { FIGURE_HEIGHT, FIGURE_WIDTH, lineFigureSvg } from '../../core/lineFigure';
import { emaSmooth } from '../../core/emaSmoothing';
import { useQueuedValue } from './redrawQueue';
import {
  CHART_COLORS,
  CHART_GRID,
  CHART_MARGIN,
  figureColor,
  STEP_AXIS,
  TOOLTIP_STYLE,
  VALUE_AXIS,
} from './chartFrame';
import type { SeriesPoint } from './downsampleSeries';
import { fitRange } from '../../core/axisRange';
import { useChartView } from './chartView';
import { logRange, positivePart } from './chartScale';
import { ChartReadout, ChartValuesTable, precise, tick, useChartPointer, type DrawnLine } from './ChartReadout';

export interface MetricChartProps {
  title: string;
  /** one line or several (e.g. rollout and validation success), each with its own colour */
  lines: readonly {
    name: string;
    points: readonly SeriesPoint[];
    color: string;
    /** draw a dot per point: default while the line has ≤ 40 points; false for a per-step series that will grow
     * past that mid-run (dropping its dots then is one more redraw of the chart) */
    dots?: boolean;
  }[];
  xLabel?: string;
  threshold?: { y: number; label: string } | null;
  marker?: { x: number; label: string } | null;
  /** more vertical markers beside `marker` (several runs' retirements), each in its run's colour */
  markers?: readonly { x: number; label: string; color: string }[];
  /** shown under the chart: what the metric means or why it is empty */
  note?: string;
  /** fixed y range (e.g. [0, 1] for rates); automatic when absent */
  yDomain?: [number, number];
  testId?: string;
  /**
   * the downloaded figure's title, in words that stand alone ("Validation success, retire-shell, seed 1000");
   * `title` when absent
   */
  figureTitle?: string;
}

/**
 * Whether a threshold line belongs on the chart's scale: inside a fixed y domain when the chart has one, else within
 * one data range of the data. A relaxed threshold (the smoke preset's δ = 1e6) would otherwise flatten the line it
 * is meant to be read against.
 */
function thresholdOnScale(y: number, lines: MetricChartProps['lines'], yDomain?: readonly [number, number]): boolean {
  if (yDomain) return y >= yDomain[0] && y <= yDomain[1];
  let lo = Infinity;
  let hi = -Infinity;
  for (const l of lines) {
    for (const p of l.points) {
      lo = Math.min(lo, p.y);
      hi = Math.max(hi, p.y);
    }
  }
  if (!Number.isFinite(lo)) return true;
  const range = Math.max(hi - lo, Math.abs(hi), Math.abs(lo), 1e-9);
  return y >= lo - range && y <= hi + range;
}

/** A range around a constant series (recharts would draw a line of zeros on [0, 4]); none when the values vary. */
function constantRange(lines: MetricChartProps['lines']): [number, number] | undefined {
  const ys = lines.flatMap((l) => l.points.map((p) => p.y));
  return ys.length > 0 && ys.every((y) => y === ys[0]) ? fitRange(ys) : undefined;
}

/**
 * The chart as a figure that reads on its own (core's lineFigure: title, axis labels, a legend naming each line, the
 * threshold and the retirement marker), for the SVG/PNG downloads.
 */
export function metricFigure(p: MetricChartProps, yDomain?: readonly [number, number], smoothing = 0): string {
  const threshold = p.threshold && thresholdOnScale(p.threshold.y, p.lines, p.yDomain) ? p.threshold : null;
  return lineFigureSvg({
    title: p.figureTitle ?? p.title,
    xLabel: p.xLabel ?? 'step',
    yLabel: p.lines.map((l) => l.name).join(', '),
    yDomain,
    series: p.lines.map((l) => ({
      label: l.name,
      color: figureColor(l.color),
      points: smoothing > 0 ? emaSmooth(l.points, smoothing).filter((q) => Number.isFinite(q.y)) : l.points,
    })),
    thresholds: threshold
      ? [{ y: threshold.y, color: figureColor(CHART_COLORS.threshold), label: threshold.label }]
      : [],
    markers: [
      ...(p.marker ? [{ x: p.marker.x, color: figureColor(CHART_COLORS.marker), label: 'retirement' }] : []),
      ...(p.markers ?? []).map((m) => ({ x: m.x, color: figureColor(m.color), label: m.label })),
    ],
    notes: [
      ...(smoothing > 0 ? [`Smoothed: debiased EMA, weight ${smoothing.toFixed(2)} (as TensorBoard smooths).`] : []),
      ...(p.note ? [p.note] : []),
    ],
  });
}

/** Save the chart next to these buttons as SVG or PNG (a 960×540 figure; the PNG at 2×). */
function ChartDownloads({ name, title, figure }: { name: string; title: string; figure: () => string }) {
  const file = name.replace(/[^A-Za-z0-9._-]+/g, '_');
  const save = (format: ChartFileFormat) => saveFigure(figure(), FIGURE_WIDTH, FIGURE_HEIGHT, file, format);
  return (
    <span className="chart-downloads">
      <button type="button" className="link" onClick={() => save('svg')} aria-label={`${title} as SVG`}>
        SVG
      </button>{' '}
      <button type="button" className="link" onClick={() => save('png')} aria-label={`${title} as PNG`}>
        PNG
      </button>
    </span>
  );
}

/**
 * The chart, redrawn only when its props change (memo: give it stable props) and then in a task of its own
 * (redrawQueue.ts), so several charts updating at once never freeze the page together.
 */
export const MetricChart = memo(function MetricChart(props: MetricChartProps) {
  return <MetricChartView {...useQueuedValue(props)} />;
});

function MetricChartView(props: MetricChartProps) {
  const { title, lines, xLabel = 'step', threshold, marker, markers, note, testId, yDomain } = props;
  const view = useChartView();
  const { smoothing, logY } = view;
  const xRange = view.xRange(xLabel);
  const pointer = useChartPointer(xLabel, view);
  const empty = lines.every((l) => l.points.length === 0);
  // what is drawn: each line as recorded and, when the view smooths, its EMA (smoothed over every value, then on a
  // log axis only the positive values of each are drawn)
  const drawn = useMemo(() => {
    const parts = lines.map((l) => (logY ? positivePart(l.points) : { points: [...l.points], dropped: 0 }));
    const out: DrawnLine[] = lines.map((l, i) => {
      const raw = parts[i]!;
      const smooth = smoothing > 0 ? emaSmooth(l.points, smoothing) : null;
      return {
        name: l.name,
        color: l.color,
        dots: l.dots,
        raw: raw.points,
        smooth: smooth && logY ? positivePart(smooth).points : smooth,
      };
    });
    return { lines: out, dropped: parts.reduce((n, p) => n + p.dropped, 0) };
  }, [lines, smoothing, logY]);
  const thresholdShown =
    threshold && thresholdOnScale(threshold.y, lines, yDomain) && (!logY || threshold.y > 0) ? threshold : null;
  const logDomain = logY ? logRange(drawn.lines.flatMap((l) => l.raw.map((p) => p.y))) : null;
  const domain = logY ? (logDomain ?? undefined) : (yDomain ?? constantRange(lines));
  // zoomed, the markers outside the range are hidden rather than widening it again
  const overflow = xRange ? 'hidden' : 'extendDomain';
  return (
    <figure className="chart" data-testid={testId} data-log-y={logY} data-zoomed={xRange !== null}>
      <figcaption>
        {title}
        {threshold && !thresholdShown ? <span className="off-scale"> · {threshold.label} (off the scale)</span> : null}
      </figcaption>
      {/* the chart stays mounted while empty: its container is measured once, before a run, not mid-run */}
      <div className="chart-body">
        {empty ? <div className="chart-empty">no values yet</div> : null}
        <ResponsiveContainer width="100%" height={200}>
          <LineChart
            margin={CHART_MARGIN}
            title={`${title}: chart over ${xLabel}`}
            desc={`${lines.map((l) => l.name).join(', ')} against ${xLabel}; the values are in the table below the chart.`}
            {...pointer.handlers}
          >
            <CartesianGrid {...CHART_GRID} />
            <XAxis
              {...STEP_AXIS}
              domain={xRange ?? STEP_AXIS.domain}
              allowDataOverflow={xRange !== null}
              allowDecimals={false}
              label={{ value: xLabel, position: 'insideBottomRight', offset: -2, fontSize: 11 }}
            />
            <YAxis
              {...VALUE_AXIS}
              scale={logY ? 'log' : 'auto'}
              allowDataOverflow={logY}
              tickFormatter={tick}
              domain={domain ?? ['auto', 'auto']}
            />
            <Tooltip {...TOOLTIP_STYLE} formatter={precise} labelFormatter={(x) => `${xLabel} ${String(x)}`} />
            {drawn.lines.map((l) => (
              <Line
                key={l.name}
                name={l.smooth ? `${l.name} (raw)` : l.name}
                data={l.raw}
                dataKey="y"
                stroke={l.color}
                strokeOpacity={l.smooth ? 0.3 : 1}
                strokeWidth={l.smooth ? 1.2 : 1.6}
                dot={!l.smooth && (l.dots ?? true) && l.raw.length <= 40 ? { r: 2.5 } : false}
                isAnimationActive={false}
              />
            ))}
            {drawn.lines.flatMap((l) =>
              l.smooth
                ? [
                    <Line
                      key={`${l.name} (smoothed)`}
                      name={l.name}
                      data={l.smooth}
                      dataKey="y"
                      stroke={l.color}
                      strokeWidth={1.8}
                      dot={false}
                      isAnimationActive={false}
                    />,
                  ]
                : [],
            )}
            {thresholdShown ? (
              <ReferenceLine
                y={thresholdShown.y}
                stroke={CHART_COLORS.threshold}
                strokeDasharray="6 4"
                ifOverflow={logY ? 'hidden' : 'extendDomain'}
                label={{
                  value: thresholdShown.label,
                  position: 'insideTopRight',
                  fontSize: 11,
                  fill: CHART_COLORS.threshold,
                }}
              />
            ) : null}
            {marker ? (
              <ReferenceLine
                x={marker.x}
                stroke={CHART_COLORS.marker}
                strokeWidth={1.5}
                ifOverflow={overflow}
                label={{ value: marker.label, position: 'top', fontSize: 11, fill: CHART_COLORS.marker }}
              />
            ) : null}
            {(markers ?? []).map((m) => (
              <ReferenceLine
                key={`${m.label}@${m.x}`}
                x={m.x}
                stroke={m.color}
                strokeWidth={1.5}
                strokeDasharray="4 3"
                ifOverflow={overflow}
                label={{ value: m.label, position: 'top', fontSize: 11, fill: m.color }}
              />
            ))}
            {pointer.selecting ? (
              <ReferenceArea
                x1={pointer.selecting[0]}
                x2={pointer.selecting[1]}
                fill={CHART_COLORS.selection}
                fillOpacity={0.25}
              />
            ) : null}
          </LineChart>
        </ResponsiveContainer>
      </div>
      {logY && drawn.dropped > 0 ? (
        <p className="chart-note" data-testid="chart-log-dropped">
          Log scale: {drawn.dropped} value{drawn.dropped === 1 ? '' : 's'} ≤ 0 not drawn (a log axis has no place for
          them); untick log-scale y to see them.
        </p>
      ) : null}
      {logY && !empty && logDomain === null ? <p className="chart-note">Log scale: no value above 0 to draw.</p> : null}
      {xRange ? (
        <p className="chart-note">
          Zoomed to {xLabel} {xRange[0]}–{xRange[1]}{' '}
          <button type="button" className="link" onClick={() => view.setXRange(xLabel, null)}>
            reset zoom
          </button>
        </p>
      ) : null}
      {empty ? null : <ChartReadout lines={drawn.lines} xLabel={xLabel} pointer={pointer} />}
      {note ? <p className="chart-note">{note}</p> : null}
      {empty ? null : <ChartValuesTable title={title} xLabel={xLabel} lines={drawn.lines} />}
      {empty ? null : (
        <ChartDownloads
          name={testId ?? title}
          title={title}
          figure={() => metricFigure(props, logY ? undefined : domain, smoothing)}
        />
      )}
    </figure>
  );
}
