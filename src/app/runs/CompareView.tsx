// The compare view: any metric of the ticked runs over steps, one line per point of the varied key(s) — the mean
// over its seeds with a ± 1 std band — TensorBoard-style EMA smoothing, each run's retirement as a dashed marker, and
// the comparison table `npm run sweep` writes (same core code, same numbers), exportable as Markdown/CSV and the
// chart as SVG/PNG.
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
import { saveChart } from '../charts/chartExport';
import { CHART_GRID, CHART_MARGIN, STEP_AXIS, VALUE_AXIS } from '../charts/chartFrame';
import { Select } from '../Select';
import { validationCurve } from '../../core/experiment/comparison';
import {
  comparisonCsv,
  comparisonMarkdown,
  emaSmooth,
  groupByPoint,
  markdownCells,
  meanBand,
  variedKeys,
} from './comparison';
import { saveText } from './download';
import { TRAINED_STAGES, type RunRecord, type StoredMetrics, type TrainedStage } from './runRecord';
import { runRepository, useRuns, runsStore } from './storedRuns';

/** Tooltip numbers to 4 significant digits; a band as "low – high". */
const tooltipValue = (v: unknown) => {
  const f = (x: unknown) => (typeof x === 'number' ? String(Number(x.toPrecision(4))) : String(x));
  return Array.isArray(v) ? `${f(v[0])} – ${f(v[1])}` : f(v);
};

const COLORS = ['#2563eb', '#dc2626', '#059669', '#7c3aed', '#ea580c', '#0891b2', '#db2777', '#4b5563'];

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
  const [metric, setMetric] = useState('rollout/success_rate');
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
        mean: downsampleSeries(band.map((b) => ({ x: b.x, y: b.mean }))),
        band: band.length > 400 ? band.filter((_, j) => j % Math.ceil(band.length / 400) === 0) : band,
        triggers: g.runs.flatMap((r) => (r.triggerStep === null ? [] : [{ id: r.id, x: r.triggerStep }])),
      };
    });
  }, [runs, keys, metrics, stage, metric, smoothing]);
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
  const cells = useMemo(() => markdownCells(markdown), [markdown]);
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
            <figcaption>
              {metric} ({stage}), mean ± 1 std over seeds{smoothing > 0 ? `, EMA ${smoothing.toFixed(2)}` : ''}
            </figcaption>
            {anyLine ? (
              <ResponsiveContainer width="100%" height={300}>
                <ComposedChart margin={CHART_MARGIN}>
                  <CartesianGrid {...CHART_GRID} />
                  <XAxis {...STEP_AXIS} />
                  <YAxis {...VALUE_AXIS} domain={['auto', 'auto']} />
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
                  {groups.map((g) => (
                    <Line
                      key={`mean-${g.label}`}
                      data={g.mean}
                      dataKey="y"
                      name={g.label}
                      stroke={g.color}
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
          </figure>
          <div className="buttons">
            <button type="button" onClick={() => saveChart(figure.current, 'compare', 'svg')}>
              chart as SVG
            </button>
            <button type="button" onClick={() => saveChart(figure.current, 'compare', 'png')}>
              chart as PNG
            </button>
            <button type="button" onClick={() => saveText(`${markdown}\n`, 'comparison.md', 'text/markdown')}>
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
                  {(cells[0] ?? []).map((c, j) => (
                    <th key={j}>{c}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {cells.slice(1).map((row, i) => (
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
