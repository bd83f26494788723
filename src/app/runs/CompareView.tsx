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
  ReferenceArea,
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
import {
  CHART_COLORS,
  CHART_GRID,
  CHART_MARGIN,
  SERIES_COLORS,
  STEP_AXIS,
  TOOLTIP_STYLE,
  VALUE_AXIS,
} from '../charts/chartFrame';
import { ChartViewControls, ChartViewProvider, useChartView } from '../charts/chartView';
import { ChartReadout, ChartValuesTable, useChartPointer } from '../charts/ChartReadout';
import { logRange, positivePart } from '../charts/chartScale';
import { emaSmooth } from '../../core/emaSmoothing';
import { ARMS, armOfSchedule, type Arm } from '../charts/armIdentity';
import { figureTitle, metricWords } from '../charts/figureTitle';
import { Select } from '../Select';
import { validationCurve } from '../../core/experiment/comparison';
import {
  comparisonCsv,
  comparisonMarkdown,
  comparisonMarkdownFile,
  groupByPoint,
  identicalUntil,
  comparisonCells,
  meanBand,
  pointLabel,
  pointOf,
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

/**
 * A group's name: the lesson's arm ("OPD throughout") where its point sets the student schedule to one, with the
 * point's other values after it; else the point's label ("student.lambdaOpd=0.5").
 */
function armGroup(run: RunRecord, keys: readonly string[], label: string): { label: string; arm: Arm | null } {
  const point = pointOf(run, keys);
  const arm = 'student.schedule' in point ? armOfSchedule(point['student.schedule']) : null;
  if (!arm) return { label, arm: null };
  const rest = Object.fromEntries(Object.entries(point).filter(([k]) => k !== 'student.schedule'));
  return { label: Object.keys(rest).length ? `${ARMS[arm].name} · ${pointLabel(rest)}` : ARMS[arm].name, arm };
}

/** The compare view, its chart read with the smoothing (0.6 to start, as TensorBoard), scale and zoom it shows. */
export function CompareView() {
  return (
    <ChartViewProvider smoothing={0.6}>
      <CompareRuns />
    </ChartViewProvider>
  );
}

function CompareRuns() {
  const all = useRuns((s) => s.runs);
  const selectedIds = useRuns((s) => s.selected);
  const runs = useMemo(() => all.filter((r) => selectedIds.includes(r.id)), [all, selectedIds]);
  const metrics = useMetrics(runs);
  const [stage, setStage] = useState<TrainedStage>('student');
  const [metric, setMetric] = useState<string>(METRIC.rolloutSuccessRate);
  const view = useChartView();
  const { smoothing, logY } = view;
  const figure = useRef<HTMLElement>(null);

  const keys = useMemo(() => variedKeys(runs), [runs]);
  const metricNames = useMemo(() => {
    const names = new Set<string>();
    for (const rows of metrics.values())
      for (const m of rows) if (m.stage === stage) for (const k of Object.keys(m.line)) if (k !== 'step') names.add(k);
    return [...names].sort();
  }, [metrics, stage]);
  const groups = useMemo(() => {
    const grouped = groupByPoint(runs, keys);
    const named = grouped.map((g) => armGroup(g.runs[0]!, keys, g.label));
    // the arms' own colours where each group is a different arm; else one series colour per group
    const armColors = named.every((n, i) => n.arm !== null && named.findIndex((m) => m.arm === n.arm) === i);
    return grouped.map((g, i) => {
      const raw = g.runs.map((r) =>
        finitePoints(
          (metrics.get(r.id) ?? []).filter((m) => m.stage === stage).map((m) => ({ x: m.step, y: m.line[metric] })),
        ),
      );
      const series = smoothing > 0 ? raw.map((s) => emaSmooth(s, smoothing)) : raw;
      const band = meanBand(series);
      return {
        label: named[i]!.label,
        color: armColors ? ARMS[named[i]!.arm!].color : COLORS[i % COLORS.length]!,
        /** the mean at every step, before downsampling: what "identical" compares */
        full: band.map((b) => ({ x: b.x, y: b.mean })),
        mean: downsampleSeries(band.map((b) => ({ x: b.x, y: b.mean }))),
        /** the mean of the unsmoothed values, drawn faint behind the smoothed mean (null when not smoothing) */
        rawMean: smoothing > 0 ? downsampleSeries(meanBand(raw).map((b) => ({ x: b.x, y: b.mean }))) : null,
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
          // agreeing on the first step only is no overlap worth a dash (every arm starts from the same SFT)
          if (same && (same.whole || same.until > g.full[0]!.x))
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
  const xLabel = `${stage === 'sft' ? 'SFT' : stage} step`;
  const xRange = view.xRange(xLabel);
  const pointer = useChartPointer(xLabel, view);
  // on a log axis only positive values are drawn: the means, their raw means and the bands' positive parts
  const { drawn, dropped } = useMemo(() => {
    if (!logY) return { drawn: groups, dropped: 0 };
    let dropped = 0;
    const drawn = groups.map((g) => {
      const mean = positivePart(g.mean);
      dropped += mean.dropped;
      return {
        ...g,
        mean: mean.points,
        rawMean: g.rawMean ? positivePart(g.rawMean).points : null,
        band: g.band.filter((b) => b.band[0] > 0),
      };
    });
    return { drawn, dropped };
  }, [groups, logY]);
  const yDomain = useMemo((): [number, number] | undefined => {
    if (logY) return logRange(drawn.flatMap((g) => g.mean.map((p) => p.y))) ?? undefined;
    if (isRateMetric(metric)) return [0, 1];
    const ys = groups.flatMap((g) => g.full.map((p) => p.y));
    // a constant line: around its value, not recharts' [0, 4]
    return ys.length > 0 && ys.every((y) => y === ys[0]) ? fitRange(ys) : undefined;
  }, [groups, drawn, metric, logY]);
  const readoutLines = useMemo(
    () => drawn.map((g) => ({ name: g.label, color: g.color, raw: g.mean, smooth: null })),
    [drawn],
  );
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
      title: figureTitle(
        `${metricWords(metric)}${stage === 'student' ? '' : ` (${stage === 'sft' ? 'SFT' : stage} stage)`}`,
        runs.map((r) => r.preset),
        runs.map((r) => r.seed),
      ),
      xLabel,
      yLabel: metricWords(metric),
      yDomain: logY ? undefined : yDomain,
      series: groups.map((g, i) => ({
        label: g.label,
        color: g.color,
        points: g.mean,
        band: g.band.map((b) => ({ x: b.x, lo: b.band[0], hi: b.band[1] })),
        dash: overlaps[i]?.dash,
      })),
      markers: groups.flatMap((g) => g.triggers.map((t) => ({ x: t.x, color: g.color, label: 'retirement' }))),
      notes: [
        `Mean ± 1 std over seeds${smoothing > 0 ? `; smoothed: debiased EMA, weight ${smoothing.toFixed(2)} (as TensorBoard smooths)` : ''}${logY ? '; drawn on a linear scale' : ''}.`,
        ...overlaps.flatMap((o) => (o ? [o.note] : [])),
      ],
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
            <span className="muted">
              grouped by {keys.length ? keys.join(', ') : 'nothing (runs differ only in seed)'}
            </span>
            <button type="button" onClick={() => runsStore.getState().setSelected([])}>
              clear selection
            </button>
          </div>
          <ChartViewControls label="compare chart" />
          <figure
            className="chart compare-chart"
            ref={figure}
            data-testid="compare-chart"
            data-log-y={logY}
            data-zoomed={xRange !== null}
          >
            <figcaption>{title}</figcaption>
            {anyLine ? (
              <ResponsiveContainer width="100%" height={300}>
                <ComposedChart
                  margin={CHART_MARGIN}
                  title={`${title}: chart over ${xLabel}`}
                  desc={`${groups.map((g) => g.label).join(', ')} against ${xLabel}; the values are in the table below the chart.`}
                  {...pointer.handlers}
                >
                  <CartesianGrid {...CHART_GRID} />
                  <XAxis {...STEP_AXIS} domain={xRange ?? STEP_AXIS.domain} allowDataOverflow={xRange !== null} />
                  <YAxis
                    {...VALUE_AXIS}
                    scale={logY ? 'log' : 'auto'}
                    allowDataOverflow={logY}
                    domain={yDomain ?? ['auto', 'auto']}
                  />
                  <Tooltip {...TOOLTIP_STYLE} formatter={tooltipValue} labelFormatter={(x) => `step ${String(x)}`} />
                  {drawn.map((g) =>
                    g.rawMean ? (
                      <Line
                        key={`raw-${g.label}`}
                        data={g.rawMean}
                        dataKey="y"
                        name={`${g.label} (raw)`}
                        stroke={g.color}
                        strokeOpacity={0.3}
                        strokeWidth={1.2}
                        dot={false}
                        isAnimationActive={false}
                      />
                    ) : null,
                  )}
                  {drawn.map((g) => (
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
                  {drawn.map((g, i) => (
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
                        ifOverflow={xRange ? 'hidden' : 'extendDomain'}
                      />
                    )),
                  )}
                  {pointer.selecting ? (
                    <ReferenceArea
                      x1={pointer.selecting[0]}
                      x2={pointer.selecting[1]}
                      fill={CHART_COLORS.selection}
                      fillOpacity={0.25}
                    />
                  ) : null}
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
            {logY && dropped > 0 ? (
              <p className="chart-note" data-testid="chart-log-dropped">
                Log scale: {dropped} value{dropped === 1 ? '' : 's'} ≤ 0 not drawn (a log axis has no place for them);
                untick log-scale y to see them.
              </p>
            ) : null}
            {xRange ? (
              <p className="chart-note">
                Zoomed to {xLabel} {xRange[0]}–{xRange[1]}{' '}
                <button type="button" className="link" onClick={() => view.setXRange(xLabel, null)}>
                  reset zoom
                </button>
              </p>
            ) : null}
            {anyLine ? <ChartReadout lines={readoutLines} xLabel={xLabel} pointer={pointer} /> : null}
            {anyLine ? <ChartValuesTable title={title} xLabel={xLabel} lines={readoutLines} /> : null}
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
