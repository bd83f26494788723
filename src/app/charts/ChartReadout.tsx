// What a metric chart shows beside itself: the values under the pointer (a click pins them, so they stay while the
// pointer moves on), the drag that zooms the view's charts, and the plotted values as a table — the chart's text
// alternative for anyone who cannot see it. Shared by MetricChart and the compare view.
import { useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { ChartViewSettings } from './chartView';
import { dragRange, seriesTable, valuesAt } from './chartScale';
import type { SeriesPoint } from './downsampleSeries';

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
export const tick = chartNumber(4, 1e-3, 1);
/** Tooltip values: more digits than the axis. */
export const precise = chartNumber(5, 1e-4, 3);

/** A value the chart's pointer handlers set and its readout shows, without redrawing the chart on every move. */
function pointerCell() {
  let value: number | null = null;
  const subscribers = new Set<() => void>();
  return {
    get: () => value,
    set(next: number | null) {
      if (next === value) return;
      value = next;
      for (const s of subscribers) s();
    },
    subscribe(s: () => void) {
      subscribers.add(s);
      return () => void subscribers.delete(s);
    },
  };
}

/** The step under the pointer, from a recharts event's active label (a number on the step axis). */
const stepOf = (label: string | number | undefined): number | null => {
  const x = typeof label === 'number' ? label : label === undefined ? NaN : Number(label);
  return Number.isFinite(x) ? x : null;
};

export interface DrawnLine {
  name: string;
  color: string;
  dots?: boolean;
  /** the values as recorded (on a log axis: the positive ones) */
  raw: SeriesPoint[];
  /** the view's EMA of them, or null when the view does not smooth */
  smooth: SeriesPoint[] | null;
}

/** The values at the pinned step, else at the hovered one: each line's smoothed value and, smoothed, its raw one. */
export function ChartReadout({
  lines,
  xLabel,
  pointer,
}: {
  lines: readonly DrawnLine[];
  xLabel: string;
  pointer: ChartPointer;
}) {
  const hovered = useSyncExternalStore(pointer.hover.subscribe, pointer.hover.get);
  const pinned = pointer.pinned;
  const x = pinned ?? hovered;
  if (x === null)
    return <p className="chart-readout muted">Point at the chart for its values; click to pin them here.</p>;
  const raw = valuesAt(
    lines.map((l) => ({ name: l.name, points: l.raw })),
    x,
  );
  const smooth = valuesAt(
    lines.map((l) => ({ name: l.name, points: l.smooth ?? [] })),
    x,
  );
  return (
    <p className="chart-readout" data-testid="chart-readout" data-pinned={pinned !== null}>
      <strong>
        {xLabel} {raw[0]?.x ?? x}
      </strong>
      {raw.map((v) => {
        const s = smooth.find((m) => m.name === v.name);
        return (
          <span key={v.name}>
            {' · '}
            {v.name} {s ? `${precise(s.y)} (raw ${precise(v.y)})` : precise(v.y)}
          </span>
        );
      })}
      {pinned !== null ? <span className="muted"> — pinned (click the chart again to unpin)</span> : null}
    </p>
  );
}

/** The plotted values as a table (the chart's text alternative), rendered only while opened. */
export function ChartValuesTable({
  title,
  xLabel,
  lines,
}: {
  title: string;
  xLabel: string;
  lines: readonly DrawnLine[];
}) {
  const [open, setOpen] = useState(false);
  const table = useMemo(
    () => (open ? seriesTable(lines.map((l) => ({ name: l.name, points: l.raw }))) : null),
    [open, lines],
  );
  return (
    <details className="chart-table" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>values as a table</summary>
      {table ? (
        <div className="table-scroll">
          <table>
            <caption>{title}</caption>
            <thead>
              <tr>
                <th scope="col">{xLabel}</th>
                {table.columns.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((r) => (
                <tr key={r.x}>
                  <th scope="row">{r.x}</th>
                  {r.values.map((v, j) => (
                    <td key={j}>{v === null ? '' : precise(v)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </details>
  );
}

export interface ChartPointer {
  /** spread into the recharts chart element */
  handlers: {
    onMouseDown(s: { activeLabel?: string | number }): void;
    onMouseMove(s: { activeLabel?: string | number }): void;
    onMouseUp(): void;
    onMouseLeave(): void;
  };
  hover: ReturnType<typeof pointerCell>;
  /** the step whose values stay shown (a click pinned them), or null */
  pinned: number | null;
  /** [from, to] of a drag in progress (what a ReferenceArea shades), or null */
  selecting: [number, number] | null;
}

/**
 * A chart's pointer: the hovered step (for the readout), a click pins its values (a second click unpins), and a
 * drag across steps zooms every chart of the view over `axis` to them (chartView.tsx). `view` is the chart's own
 * useChartView(): outside a provider each call has settings of its own, so the chart passes the one it draws with.
 */
export function useChartPointer(axis: string, view: ChartViewSettings): ChartPointer {
  // recharts hands the pointer's events over one per animation frame: a press and its release can both arrive before
  // React renders again, so the drag in progress is read from a ref (the state only draws the shaded range)
  const dragRef = useRef<{ from: number; to: number } | null>(null);
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  const [pinned, setPinned] = useState<number | null>(null);
  const [hover] = useState(pointerCell);
  const setBoth = (d: { from: number; to: number } | null) => {
    dragRef.current = d;
    setDrag(d);
  };
  return {
    handlers: {
      onMouseDown: (s) => {
        const x = stepOf(s.activeLabel) ?? hover.get();
        if (x !== null) setBoth({ from: x, to: x });
      },
      onMouseMove: (s) => {
        const x = stepOf(s.activeLabel);
        hover.set(x);
        const d = dragRef.current;
        if (d && x !== null && x !== d.to) setBoth({ from: d.from, to: x });
      },
      onMouseUp: () => {
        const d = dragRef.current;
        if (!d) return;
        const range = dragRange(d.from, d.to);
        if (range) view.setXRange(axis, range);
        else setPinned((p) => (p === null ? d.from : null));
        setBoth(null);
      },
      onMouseLeave: () => {
        hover.set(null);
        setBoth(null);
      },
    },
    hover,
    pinned,
    selecting: drag && drag.to !== drag.from ? [drag.from, drag.to] : null,
  };
}
