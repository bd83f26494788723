// The facts the guided tour states about the run on screen, read from the run's state (tour.ts turns them into
// sentences). Nothing here is assumed about a preset: an absent fact stays null or empty.
import type { RunState } from '../train/liveRunState';
import { isActive } from '../train/liveRunState';
import { liveTeacherPerformance } from './inspectionModel';
import type { TourFacts } from './tour';
import { METRIC } from '../../core/runLog/metricKeys';

export function tourFacts(state: RunState): TourFacts {
  const cosine = state.steps.sft.flatMap((l) => {
    const v = l[METRIC.sftGradCosine];
    return typeof v === 'number' && Number.isFinite(v) ? [{ step: l.step, value: v }] : [];
  });
  const e = state.evaluations[state.evaluations.length - 1];
  const s = state.summary;
  return {
    preset: state.config?.name ?? null,
    active: isActive(state.status),
    cosine,
    teacherPerformance: liveTeacherPerformance(state),
    windows: state.windows,
    lastEvaluation: e ? { step: e.step, rho: e.alignment_progress, eta: e.competence_ratio } : null,
    triggerStep: state.retirement?.triggerStep ?? (s?.gate.retired ? s.gate.triggerStep : null),
    result:
      s && s.status === 'completed' && Number.isFinite(s.test.successRate)
        ? { testSuccess: s.test.successRate, forwardsSkipped: s.gate.teacherForwardSkipped }
        : null,
  };
}
