// The compare view: any metric of the ticked runs over steps, one line per point of the varied key(s) — the mean
// over its seeds with a ± 1 std band — TensorBoard-style EMA smoothing, each run's retirement as a dashed marker, and
// the comparison table `npm run sweep` writes (same core code, same numbers), exportable as Markdown (comparison.md)
// and CSV (numeric columns) and the chart as SVG/PNG that reads on its own (title, axis labels, legend, markers). A
// line identical to an earlier one is drawn dashed, with a note saying until which step they agree.
import { useEffect, useMemo, useRef, useState } from 'react';
import {
  Area,
  CartesianGrid,
  ComposedChart,
  Line,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { downsampleSeries, finitePoints } from '../charts/downsampleSeries';
import { saveFigure } from '../charts/chartExport';
import { fitRange, isRateMetric } from '../../core/axisRange';
import { FIGURE_HEIGHT, FIGURE_WIDTH, lineFigureSvg } from '../../core/lineFigure';
import { usePresetCatalog } from '../train/usePresetCatalog';
import { CHART_GRID, CHART_MARGIN, SERIES_COLORS, STEP_AXIS, VALUE_AXIS } from '../charts/chartFrame';
import { Select } from '../Select';
import { validationCurve } from '../../core/experiment/comparison';
import {
  comparisonCsv,
  comparisonMarkdown,
  comparisonMarkdownFile,
  emaSmooth,
  groupByPoint,
  identicalUntil,
  comparisonCells,
  meanBand,
  variedKeys,
} from './comparison';
import { saveText } from '../files/download';
import { TRAINED_STAGES, type RunRecord, type StoredMetrics, type TrainedStage } from './runRecord';
import { runRepository, useRuns, runsStore } from './storedRuns';
import { METRIC } from '../../core/runLog/metricKeys';

/** Tooltip numbers to 4 significant digits; a band as "low – high". */
const tooltipValue = (v: unknown) => {
  const f = (x: unknown) => (typeof x === 'number' ? String(Number(x.toPrecision(4))) : String(x));
  return Array.isArray(v) ? `${f(v[0])} – ${f(v[1])}` : f(v);
};

const COLORS = SERIES_COLORS;

/** Metrics of the ticked runs, loaded from storage (again when a run's record changes). */
function useMetrics(runs: readonly RunRecord[]): Map<string, StoredMetrics[]> {
  const [data, setData] = useState<Map<string, StoredMetrics[]>>(new Map());
  const key = runs.map((r) => `${r.id}:${r.updatedAt}`).join(',');
  useEffect(() => {
    let live = true;
    void (async () => {
      const repo = await runRepository();
      const out = new Map<string, StoredMetrics[]>();
      for (const r of runs) out.set(r.id, await repo.metrics(r.id));
      if (live) setData(out);
    })();
    return () => {
      live = false;
    };
    // `key` stands for `runs` (their ids and last-update times): a new array of the same runs reads nothing again
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return data;
}

export function CompareView() {
  const all = useRuns((s) => s.runs);
  const selectedIds = useRuns((s) => s.selected);
  const runs = useMemo(() => all.filter((r) => selectedIds.includes(r.id)), [all, selectedIds]);
  const metrics = useMetrics(runs);
  const [stage, setStage] = useState<TrainedStage>('student');
  const [metric, setMetric] = useState<string>(METRIC.rolloutSuccessRate);
  const [smoothing, setSmoothing] = useState(0.6);
  const figure = useRef<HTMLElement>(null);

  const keys = useMemo(() => variedKeys(runs), [runs]);
  const metricNames = useMemo(() => {
    const names = new Set<string>();
    for (const rows of metrics.values())
      for (const m of rows) if (m.stage === stage) for (const k of Object.keys(m.line)) if (k !== 'step') names.add(k);
    return [...names].sort();
  }, [metrics, stage]);
  const groups = useMemo(() => {
    return groupByPoint(runs, keys).map((g, i) => {
      const series = g.runs.map((r) =>
        emaSmooth(
          finitePoints(
            (metrics.get(r.id) ?? []).filter((m) => m.stage === stage).map((m) => ({ x: m.step, y: m.line[metric] })),
          ),
          smoothing,
        ),
      );
      const band = meanBand(series);
      return {
        label: g.label,
        color: COLORS[i % COLORS.length]!,
        /** the mean at every step, before downsampling: what "identical" compares */
        full: band.map((b) => ({ x: b.x, y: b.mean })),
        mean: downsampleSeries(band.map((b) => ({ x: b.x, y: b.mean }))),
        band: band.length > 400 ? band.filter((_, j) => j % Math.ceil(band.length / 400) === 0) : band,
        triggers: g.runs.flatMap((r) => (r.triggerStep === null ? [] : [{ id: r.id, x: r.triggerStep }])),
      };
    });
  }, [runs, keys, metrics, stage, metric, smoothing]);
  // a line identical to an earlier one (e.g. two arms before the retirement) would hide under it: drawn dashed, with
  // a note "identical until step k"
  const overlaps = useMemo(
    () =>
      groups.map((g, i) => {
        for (const earlier of groups.slice(0, i)) {
          const same = identicalUntil(earlier.full, g.full);
          if (same)
            return {
              dash: '7 5',
              note: same.whole
                ? `${g.label} is identical to ${earlier.label} (drawn dashed)`
                : `${g.label} is identical to ${earlier.label} until step ${same.until} (drawn dashed)`,
            };
        }
        return null;
      }),
    [groups],
  );
  const yDomain = useMemo((): [number, number] | undefined => {
    if (isRateMetric(metric)) return [0, 1];
    const ys = groups.flatMap((g) => g.full.map((p) => p.y));
    // a constant line: around its value, not recharts' [0, 4]
    return ys.length > 0 && ys.every((y) => y === ys[0]) ? fitRange(ys) : undefined;
  }, [groups, metric]);
  const { catalog } = usePresetCatalog();
  const describePreset = (name: string): string | null => {
    try {
      return catalog?.load(name).description ?? null;
    } catch {
      return null;
    }
  };
  const title = `${metric} (${stage}), mean ± 1 std over seeds${smoothing > 0 ? `, EMA ${smoothing.toFixed(2)}` : ''}`;
  /** the chart as a figure that reads on its own: title, axis labels, legend with the retirement markers */
  const figureSvg = () =>
    lineFigureSvg({
      title,
      xLabel: `${stage === 'sft' ? 'SFT' : stage} step`,
      yLabel: metric,
      yDomain,
      series: groups.map((g, i) => ({
        label: g.label,
        color: g.color,
        points: g.mean,
        band: g.band.map((b) => ({ x: b.x, lo: b.band[0], hi: b.band[1] })),
        dash: overlaps[i]?.dash,
      })),
      markers: groups.flatMap((g) => g.triggers.map((t) => ({ x: t.x, color: g.color, label: 'retirement' }))),
      notes: overlaps.flatMap((o) => (o ? [o.note] : [])),
    });
  const exportChart = (format: 'svg' | 'png') =>
    saveFigure(figureSvg(), FIGURE_WIDTH, FIGURE_HEIGHT, 'compare', format);
  // the student validation curves, for the table's "steps to 0.9·S_T" (as the sweep CLI reads them from metrics.jsonl)
  const curves = useMemo(
    () =>
      new Map(
        runs.map((r) => [
          r.id,
          validationCurve((metrics.get(r.id) ?? []).filter((m) => m.stage === 'student').map((m) => m.line)),
        ]),
      ),
    [runs, metrics],
  );
  const markdown = useMemo(() => comparisonMarkdown(runs, curves), [runs, curves]);
  const table = useMemo(() => comparisonCells(runs, curves), [runs, curves]);
  const anyLine = groups.some((g) => g.mean.length > 0);

  return (
    <section className="compare" aria-label="compare runs" data-testid="compare-view">
      <h3>Compare</h3>
      {runs.length === 0 ? (
        <p className="muted">
          Tick runs in the table to compare them.{' '}
          <button
            type="button"
            onClick={() => runsStore.getState().setSelected(all.map((r) => r.id))}
            disabled={all.length === 0}
          >
            compare all runs
          </button>
        </p>
      ) : (
        <>
          <div className="compare-controls">
            <label>
              stage <Select value={stage} choices={TRAINED_STAGES} labels={{ sft: 'SFT' }} onChange={setStage} />
            </label>
            <label>
              metric{' '}
              <Select
                value={metric}
                choices={metricNames.includes(metric) ? metricNames : [metric, ...metricNames]}
                onChange={setMetric}
                data-testid="compare-metric"
              />
            </label>
            <label>
              smoothing {smoothing.toFixed(2)}{' '}
              <input
                type="range"
                min={0}
                max={0.99}
                step={0.01}
                value={smoothing}
                aria-label="smoothing"
                onChange={(e) => setSmoothing(Number(e.currentTarget.value))}
              />
            </label>
            <span className="muted">
              grouped by {keys.length ? keys.join(', ') : 'nothing (runs differ only in seed)'}
            </span>
            <button type="button" onClick={() => runsStore.getState().setSelected([])}>
              clear selection
            </button>
          </div>
          <figure className="chart compare-chart" ref={figure}>
            <figcaption>{title}</figcaption>
            {anyLine ? (
              <ResponsiveContainer width="100%" height={300}>
                <ComposedChart margin={CHART_MARGIN}>
                  <CartesianGrid {...CHART_GRID} />
                  <XAxis {...STEP_AXIS} />
                  <YAxis {...VALUE_AXIS} domain={yDomain ?? ['auto', 'auto']} />
                  <Tooltip formatter={tooltipValue} labelFormatter={(x) => `step ${String(x)}`} />
                  {groups.map((g) => (
                    <Area
                      key={`band-${g.label}`}
                      data={g.band}
                      dataKey="band"
                      stroke="none"
                      fill={g.color}
                      fillOpacity={0.15}
                      isAnimationActive={false}
                      legendType="none"
                      name={`${g.label} ± std`}
                    />
                  ))}
                  {groups.map((g, i) => (
                    <Line
                      key={`mean-${g.label}`}
                      data={g.mean}
                      dataKey="y"
                      name={g.label}
                      stroke={g.color}
                      strokeDasharray={overlaps[i]?.dash}
                      strokeWidth={1.8}
                      dot={false}
                      isAnimationActive={false}
                    />
                  ))}
                  {groups.flatMap((g) =>
                    g.triggers.map((t) => (
                      <ReferenceLine
                        key={`t-${t.id}`}
                        x={t.x}
                        stroke={g.color}
                        strokeDasharray="4 3"
                        ifOverflow="extendDomain"
                      />
                    )),
                  )}
                </ComposedChart>
              </ResponsiveContainer>
            ) : (
              <div className="chart-empty">
                no values of {metric} in the {stage} stage of these runs
              </div>
            )}
            <ul className="legend">
              {groups.map((g) => (
                <li key={g.label}>
                  <span className="swatch" style={{ background: g.color }} /> {g.label}
                  {g.triggers.length ? ` — retired at ${g.triggers.map((t) => t.x).join(', ')}` : ''}
                </li>
              ))}
            </ul>
            {overlaps.map((o, i) =>
              o ? (
                <p key={i} className="chart-note" data-testid="compare-identical">
                  {o.note}
                </p>
              ) : null,
            )}
          </figure>
          <div className="buttons">
            <button type="button" onClick={() => exportChart('svg')} disabled={!anyLine}>
              chart as SVG
            </button>
            <button type="button" onClick={() => exportChart('png')} disabled={!anyLine}>
              chart as PNG
            </button>
            <button
              type="button"
              onClick={() =>
                saveText(comparisonMarkdownFile(runs, curves, describePreset), 'comparison.md', 'text/markdown')
              }
            >
              table as Markdown
            </button>
            <button type="button" onClick={() => saveText(comparisonCsv(runs, curves), 'comparison.csv', 'text/csv')}>
              table as CSV
            </button>
          </div>
          <h4>Comparison (as npm run sweep&apos;s comparison.md)</h4>
          <div className="table-scroll">
            <table data-testid="comparison-table">
              <thead>
                <tr>
                  {table.header.map((c, j) => (
                    <th key={j}>{c}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {table.rows.map((row, i) => (
                  <tr key={i}>
                    {row.map((c, j) => (
                      <td key={j}>{c}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <details>
            <summary>Markdown</summary>
            <pre data-testid="comparison-markdown">{markdown}</pre>
          </details>
        </>
      )}
    </section>
  );
}
