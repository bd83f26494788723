// One metric against the training step: a line, an optional horizontal threshold (δ, γ) and an optional vertical
// marker (the step the teacher retired). Series arrive already downsampled (downsampleSeries.ts).
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { memo } from 'react';
import { saveFigure, type ChartFileFormat } from './chartExport';
import { FIGURE_HEIGHT, FIGURE_WIDTH, lineFigureSvg } from '../../core/lineFigure';
import { useQueuedValue } from './redrawQueue';
import { CHART_GRID, CHART_MARGIN, STEP_AXIS, VALUE_AXIS } from './chartFrame';
import type { SeriesPoint } from './downsampleSeries';
import { fitRange } from '../../core/axisRange';

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
}

/**
 * A number formatter for a chart: `digits` significant digits, or exponent form with `expDigits` decimals when the
 * magnitude is ≥ 1e4 or below `smallBelow` (zero excepted).
 */
const chartNumber =
  (digits: number, smallBelow: number, expDigits: number) =>
  (v: unknown): string =>
    typeof v === 'number'
      ? Math.abs(v) >= 1e4 || (Math.abs(v) < smallBelow && v !== 0)
        ? v.toExponential(expDigits)
        : String(Number(v.toPrecision(digits)))
      : String(v);
/** Axis ticks. */
const tick = chartNumber(4, 1e-3, 1);
/** Tooltip values: more digits than the axis. */
const precise = chartNumber(5, 1e-4, 3);

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
export function metricFigure(p: MetricChartProps, yDomain?: readonly [number, number]): string {
  const threshold = p.threshold && thresholdOnScale(p.threshold.y, p.lines, p.yDomain) ? p.threshold : null;
  return lineFigureSvg({
    title: p.title,
    xLabel: p.xLabel ?? 'step',
    yLabel: p.lines.map((l) => l.name).join(', '),
    yDomain,
    series: p.lines.map((l) => ({ label: l.name, color: l.color, points: l.points })),
    thresholds: threshold ? [{ y: threshold.y, color: '#b45309', label: threshold.label }] : [],
    markers: [
      ...(p.marker ? [{ x: p.marker.x, color: '#b91c1c', label: 'retirement' }] : []),
      ...(p.markers ?? []).map((m) => ({ x: m.x, color: m.color, label: m.label })),
    ],
    notes: p.note ? [p.note] : [],
  });
}

/** Save the chart next to these buttons as SVG or PNG (a 960×540 figure; the PNG at 2×). */
function ChartDownloads({ name, figure }: { name: string; figure: () => string }) {
  const file = name.replace(/[^A-Za-z0-9._-]+/g, '_');
  const save = (format: ChartFileFormat) => saveFigure(figure(), FIGURE_WIDTH, FIGURE_HEIGHT, file, format);
  return (
    <span className="chart-downloads">
      <button type="button" className="link" onClick={() => save('svg')}>
        SVG
      </button>{' '}
      <button type="button" className="link" onClick={() => save('png')}>
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
  const empty = lines.every((l) => l.points.length === 0);
  const thresholdShown = threshold && thresholdOnScale(threshold.y, lines, yDomain) ? threshold : null;
  const domain = yDomain ?? constantRange(lines);
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption>
        {title}
        {threshold && !thresholdShown ? <span className="off-scale"> · {threshold.label} (off the scale)</span> : null}
      </figcaption>
      {/* the chart stays mounted while empty: its container is measured once, before a run, not mid-run */}
      <div className="chart-body">
        {empty ? <div className="chart-empty">no values yet</div> : null}
        <ResponsiveContainer width="100%" height={200}>
          <LineChart margin={CHART_MARGIN}>
            <CartesianGrid {...CHART_GRID} />
            <XAxis
              {...STEP_AXIS}
              allowDecimals={false}
              label={{ value: xLabel, position: 'insideBottomRight', offset: -2, fontSize: 11 }}
            />
            <YAxis {...VALUE_AXIS} tickFormatter={tick} domain={domain ?? ['auto', 'auto']} />
            <Tooltip formatter={precise} labelFormatter={(x) => `${xLabel} ${String(x)}`} />
            {lines.map((l) => (
              <Line
                key={l.name}
                name={l.name}
                data={l.points as SeriesPoint[]}
                dataKey="y"
                stroke={l.color}
                strokeWidth={1.6}
                dot={(l.dots ?? true) && l.points.length <= 40 ? { r: 2.5 } : false}
                isAnimationActive={false}
              />
            ))}
            {thresholdShown ? (
              <ReferenceLine
                y={thresholdShown.y}
                stroke="#b45309"
                strokeDasharray="6 4"
                ifOverflow="extendDomain"
                label={{ value: thresholdShown.label, position: 'insideTopRight', fontSize: 11, fill: '#b45309' }}
              />
            ) : null}
            {marker ? (
              <ReferenceLine
                x={marker.x}
                stroke="#b91c1c"
                strokeWidth={1.5}
                ifOverflow="extendDomain"
                label={{ value: marker.label, position: 'top', fontSize: 11, fill: '#b91c1c' }}
              />
            ) : null}
            {(markers ?? []).map((m) => (
              <ReferenceLine
                key={`${m.label}@${m.x}`}
                x={m.x}
                stroke={m.color}
                strokeWidth={1.5}
                strokeDasharray="4 3"
                ifOverflow="extendDomain"
                label={{ value: m.label, position: 'top', fontSize: 11, fill: m.color }}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
      {note ? <p className="chart-note">{note}</p> : null}
      {empty ? null : <ChartDownloads name={testId ?? title} figure={() => metricFigure(props, domain)} />}
    </figure>
  );
}
