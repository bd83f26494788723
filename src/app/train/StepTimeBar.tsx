// "Where the time goes": one stacked bar per trained stage of the mean seconds per step in each phase (rollout,
// teacher forward, update, validation, checkpoint), from the step lines' time/*_s fields (core/runLog/stepPhases.ts).
import { meanPhaseSeconds, PHASES, type Phase } from '../../core/runLog/stepPhases';
import { useRun } from './liveRun';
import { HUE } from '../charts/chartPalette';

const LABEL: Record<Phase, string> = {
  rollout: 'rollout',
  teacherForward: 'teacher forward',
  update: 'update',
  validation: 'validation',
  checkpoint: 'checkpoint',
};
const COLOUR: Record<Phase, string> = {
  rollout: HUE.blue,
  teacherForward: HUE.amber,
  update: HUE.green,
  validation: HUE.violet,
  checkpoint: HUE.gray,
};

function Bar({ stage, means }: { stage: string; means: Record<Phase, number> }) {
  const total = PHASES.reduce((s, p) => s + means[p], 0);
  if (!(total > 0)) return null;
  const parts = PHASES.filter((p) => means[p] > 0);
  const title = parts.map((p) => `${LABEL[p]} ${means[p].toFixed(3)} s`).join(' · ');
  return (
    <div className="step-time" data-testid={`step-time-${stage}`}>
      <div className="step-time-label">
        {stage}: {total.toFixed(3)} s per step
      </div>
      <div className="step-time-bar" role="img" aria-label={`${stage} step time: ${title}`} title={title}>
        {parts.map((p) => (
          <span key={p} style={{ width: `${(100 * means[p]) / total}%`, background: COLOUR[p] }} />
        ))}
      </div>
      <div className="step-time-legend">
        {parts.map((p) => (
          <span key={p}>
            <i style={{ background: COLOUR[p] }} /> {LABEL[p]} {((100 * means[p]) / total).toFixed(0)}%
          </span>
        ))}
      </div>
    </div>
  );
}

/** The stacked bars of the teacher and student stages (nothing for a log without phase timings). */
export function StepTimeBar() {
  const steps = useRun((st) => st.steps);
  const stages = (['teacher', 'student'] as const)
    .map((stage) => ({ stage, means: meanPhaseSeconds(steps[stage]) }))
    .filter((x): x is { stage: 'teacher' | 'student'; means: Record<Phase, number> } => x.means !== null);
  if (stages.length === 0) return null;
  return (
    <div className="step-times" aria-label="where the time goes">
      <h4>Where the time goes</h4>
      {stages.map(({ stage, means }) => (
        <Bar key={stage} stage={stage} means={means} />
      ))}
    </div>
  );
}
