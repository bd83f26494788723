// The gate inspector: the timeline, then one row per evaluated window — index, end step, K̄ₘ, previous K̄,
// ρ against δ, S and S_prev, η against γ, whether the criterion was valid (and why not), the decision and the reason
// in words. The rows come from src/core/gateInspection.ts, which reads the gate's own evaluations (a live run's
// events or a replay's evaluation lines). Test ids: `gate-window-row` with data-window-index, data-step and
// data-retired="true" on the row where the teacher retires.
import { useState } from 'react';
import { formatGateNumber as f, type InspectionRow } from '../../core/gateInspection';
import { ExplainButton } from './ExplainButton';
import { GateTimeline, type TimelineProps } from './GateTimeline';
import { HiddenRows } from '../HiddenRowsNote';
import { shownRows } from '../shownRows';
import './teaching.css';
import './gateInspector.css';

export interface GateInspectorProps extends Omit<TimelineProps, 'rows'> {
  rows: readonly InspectionRow[];
  delta: number;
  gamma: number;
}

const INVALID_WORDS = {
  'no-previous-window': 'no previous window',
  'previous-near-zero': '|prev| ≤ ε',
  'not-finite': 'not finite',
} as const;

/** A criterion's value (ρ or η), marked met or unmet with the comparison that held; unmarked when not evaluated. */
function CriterionCell(props: { value: number | null; met: boolean | null; holds: string; fails: string }) {
  const { value, met, holds, fails } = props;
  return (
    <td className={met === null ? '' : met ? 'met' : 'unmet'}>
      {f(value)}
      {met === null ? '' : met ? holds : fails}
    </td>
  );
}

export function GateInspector({ rows, delta, gamma, ...timeline }: GateInspectorProps) {
  const [all, setAll] = useState(false);
  const { shown, hidden } = shownRows(
    rows,
    rows.findIndex((r) => r.decision === 'retire'),
    all,
  );
  return (
    <section className="gate-inspector" aria-label="gate inspector">
      <h3>
        Gate inspector <ExplainButton id="gate_decision" />
      </h3>
      <GateTimeline rows={rows} {...timeline} />
      {rows.length === 0 ? (
        <p className="muted">No window evaluated yet: the gate needs W gaps, then a validation.</p>
      ) : (
        <div className="table-wrap">
          <table aria-label="gate decisions" className="inspector-table">
            <thead>
              <tr>
                <th>window</th>
                <th>end step</th>
                <th>val step</th>
                <th>
                  K̄ₘ <ExplainButton id="k_window_mean" />
                </th>
                <th>prev K̄</th>
                <th>
                  ρ vs δ = {f(delta)} <ExplainButton id="alignment_progress" />
                </th>
                <th>S</th>
                <th>S_prev</th>
                <th>
                  η vs γ = {f(gamma)} <ExplainButton id="competence_ratio" />
                </th>
                <th>
                  valid <ExplainButton id="criterion_valid" />
                </th>
                <th>decision</th>
              </tr>
            </thead>
            <tbody>
              {shown.map(({ row: r }) => [
                <tr
                  key={r.windowIndex}
                  data-testid="gate-window-row"
                  data-window-index={r.windowIndex}
                  data-step={r.step}
                  data-retired={r.decision === 'retire' ? 'true' : 'false'}
                  data-rho={r.alignmentProgress ?? ''}
                  data-eta={r.competenceRatio ?? ''}
                  className={`decision-${r.decision}`}
                >
                  <td>{r.windowIndex}</td>
                  <td>{r.windowEndStep}</td>
                  <td>{r.step}</td>
                  <td>{f(r.kWindowMean)}</td>
                  <td>{f(r.previousKWindowMean)}</td>
                  <CriterionCell value={r.alignmentProgress} met={r.aligned} holds=" ≤ δ" fails=" > δ" />
                  <td>{f(r.studentPerformance)}</td>
                  <td>{f(r.previousPerformance)}</td>
                  <CriterionCell value={r.competenceRatio} met={r.competent} holds=" ≥ γ" fails=" < γ" />
                  <td className="validity">
                    {r.valid ? 'yes' : `no (${INVALID_WORDS[r.invalidReason ?? 'not-finite']})`}
                  </td>
                  <td>
                    <strong>{r.decision === 'retire' ? 'RETIRE' : r.decision === 'keep' ? 'keep' : 'retired'}</strong>
                  </td>
                </tr>,
                <tr key={`${r.windowIndex}-reason`} className="reason-row" data-testid="gate-window-reason">
                  <td colSpan={11}>{r.reason}</td>
                </tr>,
              ])}
            </tbody>
          </table>
          <HiddenRows hidden={hidden} total={rows.length} onShowAll={() => setAll(true)} />
        </div>
      )}
    </section>
  );
}
