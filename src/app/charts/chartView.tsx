// How the metric charts of one view are read, shared by all of them: the EMA smoothing (TensorBoard's debiased
// EMA, core/emaSmoothing.ts; the raw curve stays faint behind), a log-scale y axis, and the x range a drag zoomed
// into — one range per x axis (student step, SFT step), so every chart of the view over the same steps zooms
// together. A view wraps its charts in <ChartViewProvider> and shows <ChartViewControls> once; a chart outside
// any provider keeps its own settings.
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';

export interface ChartViewSettings {
  /** EMA weight in [0, 0.99]; 0 draws the raw curve only */
  smoothing: number;
  /** a log-scale y axis (values ≤ 0 are left out, and the chart says how many) */
  logY: boolean;
  /** the zoomed x range of the charts over `axis` (their x label), or null: the whole run */
  xRange(axis: string): [number, number] | null;
  setSmoothing(w: number): void;
  setLogY(on: boolean): void;
  setXRange(axis: string, range: [number, number] | null): void;
  /** whether any axis is zoomed */
  zoomed: boolean;
  resetZoom(): void;
}

function useSettings(initialSmoothing: number): ChartViewSettings {
  const [smoothing, setSmoothing] = useState(initialSmoothing);
  const [logY, setLogY] = useState(false);
  const [ranges, setRanges] = useState<ReadonlyMap<string, [number, number]>>(new Map());
  return useMemo(
    () => ({
      smoothing,
      logY,
      xRange: (axis: string) => ranges.get(axis) ?? null,
      setSmoothing,
      setLogY,
      setXRange: (axis: string, range: [number, number] | null) =>
        setRanges((m) => {
          const next = new Map(m);
          if (range) next.set(axis, range);
          else next.delete(axis);
          return next;
        }),
      zoomed: ranges.size > 0,
      resetZoom: () => setRanges(new Map()),
    }),
    [smoothing, logY, ranges],
  );
}

const ChartViewContext = createContext<ChartViewSettings | null>(null);

/** The settings shared by the charts inside it; `smoothing` is the EMA weight they start with. */
export function ChartViewProvider({ children, smoothing = 0 }: { children: ReactNode; smoothing?: number }) {
  return <ChartViewContext.Provider value={useSettings(smoothing)}>{children}</ChartViewContext.Provider>;
}

/** The view's chart settings, or a chart's own when it is outside any provider. */
export function useChartView(): ChartViewSettings {
  const shared = useContext(ChartViewContext);
  const own = useSettings(0);
  return shared ?? own;
}

/** The smoothing slider, the log-scale toggle and the zoom reset of the charts of a view. */
export function ChartViewControls({ label = 'charts' }: { label?: string }) {
  const v = useChartView();
  return (
    <div className="chart-view-controls" role="group" aria-label={`${label}: smoothing, scale and zoom`}>
      <label>
        smoothing <output>{v.smoothing.toFixed(2)}</output>{' '}
        <input
          type="range"
          min={0}
          max={0.99}
          step={0.01}
          value={v.smoothing}
          aria-label="smoothing"
          aria-valuetext={v.smoothing > 0 ? `EMA weight ${v.smoothing.toFixed(2)}` : 'off: raw values'}
          onChange={(e) => v.setSmoothing(Number(e.currentTarget.value))}
        />
      </label>
      <label>
        <input type="checkbox" checked={v.logY} onChange={(e) => v.setLogY(e.currentTarget.checked)} /> log-scale y
      </label>
      <button type="button" onClick={v.resetZoom} disabled={!v.zoomed}>
        reset zoom
      </button>
      <span className="muted">drag across a chart to zoom; click it to pin the values</span>
    </div>
  );
}
