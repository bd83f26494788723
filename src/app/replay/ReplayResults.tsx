// What a replay found: the summary (retired?, trigger step, teacher forwards saved, agreement with the log's own
// trigger), the gate's series with δ, γ and the trigger marked, and every evaluation in a table.
// Teaching mode adds an explain button beside each chart, the gate inspector (one row per evaluated window, the
// decision in words) and the what-if sliders with the sensitivity strip.
import { lazy, Suspense, useMemo, useState } from 'react';
import type { ReplayOptions, ReplayResult } from '../../core/replay/gateReplay';
import type { LogSource } from '../../core/replay/logRecords';
import { evidenceHeadline } from '../../core/replay/windowCadence';
import { gateCharts, type GateSeries } from '../charts/gateCharts';
import { MetricChart } from '../charts/MetricChart';
import { ExplainButton } from '../teaching/ExplainButton';
import type { ExplanationId } from '../teaching/explanations';
import { inspectReplay } from '../teaching/inspectionModel';
import type { ReplaySeries } from './replayModel';
import { HiddenRows } from '../HiddenRowsNote';
import { shownRows } from '../shownRows';
import './replay.css';

// the inspector and the what-if load with the first replay, not with the page
const GateInspector = lazy(() => import('../teaching/GateInspector').then((m) => ({ default: m.GateInspector })));
const WhatIfPanel = lazy(() => import('../teaching/WhatIfPanel').then((m) => ({ default: m.WhatIfPanel })));

/** The gate's charts, in the order drawn: what each shows and which explanation goes beside it. */
const REPLAY_CHARTS: readonly {
  quantity: keyof GateSeries;
  testId: string;
  xLabel: string;
  title: string;
  note: string;
  explain: ExplanationId;
}[] = [
  {
    quantity: 'windowMean',
    testId: 'chart-window-mean',
    xLabel: 'window end step',
    title: 'K̄ₘ — mean gap of the evaluated window',
    note:
      'K = −g per step; each window averages W of them, drawn at the step that closed the window (a validation may ' +
      'read it later). The gap should shrink while the teacher helps.',
    explain: 'k_window_mean',
  },
  {
    quantity: 'alignment',
    testId: 'chart-alignment',
    xLabel: 'validation step',
    title: 'ρ — alignment progress',
    note: 'ρ = (K̄ₘ₋₁ − K̄ₘ)/K̄ₘ₋₁: > 0 while the gap is still shrinking. Retirement needs ρ ≤ δ.',
    explain: 'alignment_progress',
  },
  {
    quantity: 'competence',
    testId: 'chart-competence',
    xLabel: 'validation step',
    title: 'η — competence ratio',
    note: 'η = (S + S_prev)/(2·S_T). Retirement needs η ≥ γ.',
    explain: 'competence_ratio',
  },
];

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const num = (v: number | null, digits = 4) => (v === null ? '—' : Number.isInteger(v) ? String(v) : v.toFixed(digits));

function Summary({ result }: { result: ReplayResult }) {
  const s = result.summary;
  const agreement =
    s.log_trigger_step === undefined ? null : (
      <div className={`agreement ${s.agrees_with_log ? 'yes' : 'no'}`} data-testid="summary-agreement">
        {s.agrees_with_log ? '✓ agrees' : '✗ disagrees'} with the log’s own trigger step (
        {s.log_trigger_step === null ? 'never retired' : `step ${s.log_trigger_step}`})
      </div>
    );
  return (
    <section className="summary" aria-label="replay summary">
      <div className={`verdict ${s.retired ? 'retired' : 'active'}`} data-testid="summary-verdict">
        {s.retired ? `The teacher retires at step ${s.trigger_step}` : 'The teacher never retires in this log'}
      </div>
      {s.evidence ? (
        <p className="evidence" data-testid="summary-evidence" data-age-steps={s.evidence.age_steps}>
          {capitalised(evidenceHeadline(s.evidence, s.retired))}.
        </p>
      ) : null}
      {(s.warnings ?? []).map((warning) => (
        <p className="replay-warning" role="note" data-testid="summary-warning" key={warning}>
          ⚠ {warning}
        </p>
      ))}
      <dl>
        <dt>retired</dt>
        <dd data-testid="summary-retired">{s.retired ? 'yes' : 'no'}</dd>
        <dt>trigger step</dt>
        <dd data-testid="summary-trigger-step">{s.trigger_step === null ? 'none' : s.trigger_step}</dd>
        <dt>teacher forward steps saved</dt>
        <dd data-testid="summary-saved">{s.teacher_forward_steps_saved}</dd>
        <dt>windows / evaluated</dt>
        <dd>
          {s.windows} / {s.evaluations}
        </dd>
        <dt>training steps / validations</dt>
        <dd>
          {s.steps} / {s.validations}
        </dd>
        <dt>format · schedule</dt>
        <dd>
          {s.format} · {s.schedule}
        </dd>
        <dt>gap key · validation key</dt>
        <dd>
          <code>{s.gap_key}</code> · <code>{s.val_key}</code>
        </dd>
      </dl>
      {agreement}
      {s.placeholder_gaps_ignored ? (
        <p className="muted">
          {s.placeholder_gaps_ignored} step(s) needed a gap the log holds only as a post-retirement placeholder; they
          were not observed.
        </p>
      ) : null}
    </section>
  );
}

function EvaluationTable({ result }: { result: ReplayResult }) {
  const rows = result.evaluations;
  const [all, setAll] = useState(false);
  const trigger = rows.findIndex((r) => r.step === result.summary.trigger_step && r.retired);
  const { shown, hidden } = shownRows(rows, trigger, all);
  if (rows.length === 0) {
    return <p className="muted">No window was evaluated: the log needs W gaps before a validation.</p>;
  }
  return (
    <div className="table-wrap">
      <table aria-label="evaluations">
        <thead>
          <tr>
            <th>step</th>
            <th>window</th>
            <th>window end</th>
            <th>K̄ₘ</th>
            <th>ρ — alignment progress</th>
            <th>η — competence ratio</th>
            <th>S</th>
            <th>valid</th>
            <th>retired</th>
          </tr>
        </thead>
        <tbody>
          {shown.map(({ row: r }) => (
            <tr
              key={r.window_index}
              className={r.step === result.summary.trigger_step && r.retired ? 'trigger' : undefined}
            >
              <td>{r.step}</td>
              <td>{r.window_index}</td>
              <td>{r.window_end_step}</td>
              <td>{num(r.k_window_mean)}</td>
              <td>{num(r.alignment_progress)}</td>
              <td>{num(r.competence_ratio)}</td>
              <td>{num(r.student_performance, 3)}</td>
              <td>{r.criterion_valid ? 'yes' : 'no'}</td>
              <td>{r.retired ? 'yes' : 'no'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <HiddenRows hidden={hidden} total={rows.length} onShowAll={() => setAll(true)} />
    </div>
  );
}

export function ReplayResults({
  result,
  series,
  delta,
  gamma,
  sources,
  options,
}: {
  result: ReplayResult;
  series: ReplaySeries;
  delta: number;
  gamma: number;
  /** the logs and options the result came from: the what-if re-runs the gate over them (null: logs too large) */
  sources: readonly LogSource[] | null;
  options: ReplayOptions;
}) {
  const inspection = useMemo(() => inspectReplay(result, options), [result, options]);
  const whatIfKey = useMemo(
    () => JSON.stringify(options) + (sources ?? []).map((s) => s.name).join('\n'),
    [options, sources],
  );
  const charts = gateCharts(series, { delta, gamma }, result.summary.trigger_step);
  return (
    <>
      <Summary result={result} />
      <div className="charts">
        {REPLAY_CHARTS.map((c) => (
          <div className="explained-chart" key={c.testId}>
            <MetricChart testId={c.testId} title={c.title} {...charts[c.quantity]} xLabel={c.xLabel} note={c.note} />
            <ExplainButton id={c.explain} />
          </div>
        ))}
      </div>
      <Suspense fallback={<p className="muted">Loading the gate inspector…</p>}>
        <GateInspector
          rows={inspection.rows}
          delta={inspection.config.alignmentThreshold}
          gamma={inspection.config.competenceThreshold}
        />
        {sources ? (
          <WhatIfPanel key={whatIfKey} sources={sources} options={options} />
        ) : (
          <p className="muted" data-testid="what-if-too-large">
            What if δ, γ or W were different? That panel re-runs the replay on this page for every setting it shows: it
            is offered for logs up to 4 MiB. Change the settings above and replay again instead.
          </p>
        )}
      </Suspense>
      <h3>
        Evaluations, as <code>npm run replay</code> prints them
      </h3>
      <EvaluationTable result={result} />
    </>
  );
}
