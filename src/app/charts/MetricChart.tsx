// One metric against the training step: a line, an optional horizontal threshold (δ, γ) and an optional vertical
// marker (the step the teacher retired). Series arrive already downsampled (downsampleSeries.ts).
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { SeriesPoint } from './downsampleSeries';

export interface MetricChartProps {
  title: string;
  /** one line or several (e.g. rollout and validation success), each with its own colour */
  lines: readonly { name: string; points: readonly SeriesPoint[]; color: string }[];
  xLabel?: string;
  threshold?: { y: number; label: string } | null;
  marker?: { x: number; label: string } | null;
  /** shown under the chart: what the metric means or why it is empty */
  note?: string;
  testId?: string;
}

const format = (v: unknown) =>
  typeof v === 'number' ? (Math.abs(v) >= 1000 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : v.toFixed(4)) : String(v);

export function MetricChart({ title, lines, xLabel = 'step', threshold, marker, note, testId }: MetricChartProps) {
  const empty = lines.every((l) => l.points.length === 0);
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      {empty ? (
        <div className="chart-empty">no values yet</div>
      ) : (
        <ResponsiveContainer width="100%" height={200}>
          <LineChart margin={{ top: 8, right: 16, bottom: 4, left: 0 }}>
            <CartesianGrid stroke="#e5e7eb" strokeDasharray="3 3" />
            <XAxis
              dataKey="x"
              type="number"
              domain={['dataMin', 'dataMax']}
              allowDuplicatedCategory={false}
              tick={{ fontSize: 11 }}
              label={{ value: xLabel, position: 'insideBottomRight', offset: -2, fontSize: 11 }}
            />
            <YAxis tick={{ fontSize: 11 }} width={56} tickFormatter={format} domain={['auto', 'auto']} />
            <Tooltip formatter={format} labelFormatter={(x) => `${xLabel} ${String(x)}`} />
            {lines.map((l) => (
              <Line
                key={l.name}
                name={l.name}
                data={l.points as SeriesPoint[]}
                dataKey="y"
                stroke={l.color}
                strokeWidth={1.6}
                dot={l.points.length <= 40 ? { r: 2.5 } : false}
                isAnimationActive={false}
              />
            ))}
            {threshold ? (
              <ReferenceLine
                y={threshold.y}
                stroke="#b45309"
                strokeDasharray="6 4"
                ifOverflow="extendDomain"
                label={{ value: threshold.label, position: 'insideTopRight', fontSize: 11, fill: '#b45309' }}
              />
            ) : null}
            {marker ? (
              <ReferenceLine
                x={marker.x}
                stroke="#b91c1c"
                strokeWidth={1.5}
                ifOverflow="extendDomain"
                label={{ value: marker.label, position: 'insideTopLeft', fontSize: 11, fill: '#b91c1c' }}
              />
            ) : null}
          </LineChart>
        </ResponsiveContainer>
      )}
      {note ? <p className="chart-note">{note}</p> : null}
    </figure>
  );
}
