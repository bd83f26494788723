// Teaching panels for the run in the Train view: the gate inspector over the run's own gate events and the what-if
// sliders over its student log (the run's metrics.jsonl, replayed as `npm run replay` would). Shown once the student
// stage has an S_T; the trajectory viewer while a run is going (it samples the held run) or one is played back (it
// samples the played run's checkpoints, or says why there are none).
import { useDeferredValue, useMemo, useState } from 'react';
import { useQueuedValue } from '../charts/redrawQueue';
import { useThrottledValue } from '../charts/useThrottledValue';
import { useRun } from '../train/liveRun';
import { GateInspector } from './GateInspector';
import { inspectLiveRun } from './inspectionModel';
import { WhatIfPanel } from './WhatIfPanel';
import { TrajectoryViewer } from './TrajectoryViewer';
import { isActive } from '../train/liveRunState';
import { usePlayback } from '../train/playbackStore';
import { RecordedCheckpointViewer } from './RecordedCheckpointViewer';

export function LiveTeachingPanel() {
  const state = useRun((s) => s);
  // the inspector follows the run without slowing it or the page: at most once a second while the run trains, in a
  // task of its own (the charts' redraw queue), and React may skip intermediate states
  const training = state.status === 'running' || state.status === 'starting' || state.status === 'pausing';
  const deferred = useDeferredValue(useQueuedValue(useThrottledValue(state, training ? 1000 : 0)));
  const held = deferred.status === 'paused' || deferred.status === 'completed' || deferred.status === 'stopped';
  // the what-if replays the whole log (and a δ × γ grid of replays): only once the reader opens it
  const [whatIfOpen, setWhatIfOpen] = useState(false);
  const inspection = useMemo(() => {
    try {
      return { ok: true as const, value: inspectLiveRun(deferred, held && whatIfOpen) };
    } catch (e) {
      return { ok: false as const, error: e instanceof Error ? e.message : String(e) };
    }
  }, [deferred, held, whatIfOpen]);
  // probes are answered while the run is held before a rollout: in the teacher and student stages
  const probeable = state.status === 'paused' && (state.stage === 'teacher' || state.stage === 'student');
  // a recorded, stored or imported run played back: its checkpoints (sampled in a worker of their own)
  const playback = usePlayback((p) => p.source);
  const frame = usePlayback((p) => p.frame);
  const viewer = isActive(state.status) ? (
    <TrajectoryViewer held={probeable} />
  ) : playback && playback.checkpoints.length > 0 ? (
    <RecordedCheckpointViewer source={playback} frame={frame} />
  ) : playback ? (
    <p className="muted" data-testid="probe-unavailable">
      No trajectory viewer for this run: the viewer samples a run’s checkpoints, and this browser keeps none of this
      one’s.
    </p>
  ) : null;
  if (!inspection.ok) return <p className="error">{inspection.error}</p>;
  const i = inspection.value;
  if (!i) return viewer;
  return (
    <section className="live-teaching" aria-label="gate of this run">
      <GateInspector
        rows={i.rows}
        delta={i.config.alignmentThreshold}
        gamma={i.config.competenceThreshold}
        windowEnds={i.windowEnds}
        validationSteps={i.validationSteps}
        lastStep={i.lastStep}
      />
      {held && i.gated ? (
        <details className="live-whatif" open={whatIfOpen} onToggle={(e) => setWhatIfOpen(e.currentTarget.open)}>
          <summary data-testid="live-whatif-open">
            What if δ, γ or W were different? (replays this run’s log, as npm run replay would)
          </summary>
          {i.whatIf ? (
            <WhatIfPanel
              key={`${state.runId}-${i.lastStep}`}
              sources={i.whatIf.sources}
              options={i.whatIf.options}
              ongoing={isActive(state.status)}
            />
          ) : null}
        </details>
      ) : !held ? (
        <p className="muted">Pause the run (or let it finish) to try the what-if sliders on its log so far.</p>
      ) : (
        <p className="muted">
          The what-if needs a gated schedule (adaptive, alignment-only, competence-only); this run’s schedule does not
          depend on the log.
        </p>
      )}
      {viewer}
    </section>
  );
}
