// The Train view's chart series from a RunState: gate quantities from the window/evaluation events, the rest from
// the per-step metrics lines (keys as docs/METHODS.md names them), each downsampled for drawing.
import { downsampleSeries, finitePoints, type SeriesPoint } from '../charts/downsampleSeries';
import type { RunState } from './liveRunState';
import type { MetricsLine } from '../../engine/trainer/events';
import { METRIC } from '../../core/runLog/metricKeys';

export interface TrainSeries {
  windowMean: SeriesPoint[];
  alignment: SeriesPoint[];
  competence: SeriesPoint[];
  rolloutSuccess: SeriesPoint[];
  validationSuccess: SeriesPoint[];
  entropy: SeriesPoint[];
  /** cos(g_act, g_obs) measured every sft.geometryEvery SFT steps */
  gradientCosine: SeriesPoint[];
}

const byStep = (lines: readonly MetricsLine[], key: string, maxPoints?: number) =>
  downsampleSeries(finitePoints(lines.map((l) => ({ x: l.step, y: l[key] }))), maxPoints);

export function trainSeries(
  state: Pick<RunState, 'windows' | 'evaluations' | 'steps'>,
  maxPoints?: number,
): TrainSeries {
  const student = state.steps.student;
  return {
    windowMean: downsampleSeries(finitePoints(state.windows.map((w) => ({ x: w.step, y: w.mean }))), maxPoints),
    alignment: downsampleSeries(
      finitePoints(state.evaluations.map((e) => ({ x: e.step, y: e.alignment_progress }))),
      maxPoints,
    ),
    competence: downsampleSeries(
      finitePoints(state.evaluations.map((e) => ({ x: e.step, y: e.competence_ratio }))),
      maxPoints,
    ),
    rolloutSuccess: byStep(student, METRIC.rolloutSuccessRate, maxPoints),
    validationSuccess: byStep(student, METRIC.valSuccessRate, maxPoints),
    entropy: byStep(student, METRIC.actorEntropy, maxPoints),
    gradientCosine: byStep(state.steps.sft, METRIC.sftGradCosine, maxPoints),
  };
}
