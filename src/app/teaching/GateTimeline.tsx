// The gate's timeline: completed windows (blue ticks at their end step) above, validations that evaluated a window
// below (a dot coloured by the decision), a line from each window to the validation that evaluated it, and the
// trigger step in red. SVG in a fixed viewBox, scaled to the width of the page.
import type { InspectionRow } from '../../core/gateInspection';
import { CHART_COLORS } from '../charts/chartFrame';
import { HUE } from '../charts/chartPalette';

/** a kept decision's dot: mid grey, ≥ 3:1 on either theme's background */
const GREY = 'var(--gray-500, #6b7280)';

const WIDTH = 1000;
const HEIGHT = 74;
const PAD = 24;

export interface TimelineProps {
  rows: readonly InspectionRow[];
  /** end steps of every completed window (evaluated or not); the rows' windows when absent */
  windowEnds?: readonly number[];
  /** steps of every validation (evaluating or not) */
  validationSteps?: readonly number[];
  lastStep?: number;
}

export function GateTimeline({ rows, windowEnds, validationSteps, lastStep }: TimelineProps) {
  const ends = windowEnds ?? rows.map((r) => r.windowEndStep);
  const vals = validationSteps ?? rows.map((r) => r.step);
  const maxStep = Math.max(1, lastStep ?? 0, ...ends, ...vals);
  const x = (step: number) => PAD + ((WIDTH - 2 * PAD) * step) / maxStep;
  const trigger = rows.find((r) => r.decision === 'retire');
  return (
    <figure className="gate-timeline" data-testid="gate-timeline">
      <figcaption>
        Timeline: windows of W gaps (blue, at their last step) and the validations that evaluated them (dots: red =
        retire, grey = keep, hollow = not evaluable)
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="gate timeline" preserveAspectRatio="none">
        <line x1={PAD} x2={WIDTH - PAD} y1={HEIGHT - 12} y2={HEIGHT - 12} stroke="var(--gray-400, #9ca3af)" />
        <text x={PAD} y={HEIGHT - 1} fontSize={10} fill={CHART_COLORS.text}>
          0
        </text>
        <text x={WIDTH - PAD} y={HEIGHT - 1} fontSize={10} fill={CHART_COLORS.text} textAnchor="end">
          step {maxStep}
        </text>
        {vals.map((s, i) => (
          <line key={`v${i}`} x1={x(s)} x2={x(s)} y1={HEIGHT - 16} y2={HEIGHT - 8} stroke="var(--gray-300, #d1d5db)" />
        ))}
        {ends.map((s, i) => (
          <rect key={`w${i}`} x={x(s) - 2} y={8} width={4} height={12} fill={HUE.blue}>
            <title>
              window {i + 1} ends at step {s}
            </title>
          </rect>
        ))}
        {rows.map((r) => (
          <g key={r.windowIndex}>
            <line x1={x(r.windowEndStep)} y1={20} x2={x(r.step)} y2={40} stroke="var(--blue-300, #93c5fd)" />
            <circle
              cx={x(r.step)}
              cy={44}
              r={5}
              fill={r.decision === 'retire' ? CHART_COLORS.marker : r.valid ? GREY : 'var(--surface, #fff)'}
              stroke={r.decision === 'retire' ? CHART_COLORS.marker : GREY}
            >
              <title>
                step {r.step}, window {r.windowIndex}: {r.reason}
              </title>
            </circle>
          </g>
        ))}
        {trigger ? (
          <line
            x1={x(trigger.step)}
            x2={x(trigger.step)}
            y1={2}
            y2={HEIGHT - 12}
            stroke={CHART_COLORS.marker}
            strokeWidth={2}
          />
        ) : null}
      </svg>
    </figure>
  );
}
