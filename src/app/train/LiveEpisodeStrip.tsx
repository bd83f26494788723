// The live episode strip: while a run trains, one episode of the current training rollout as the environment shows
// it — the task, each command and the observation it got back, the reward — so a class sees what the agent does,
// not only curves. The worker sends at most one episode a second (the trainer picks it; the page only draws it).
// In the student stage it says whether the teacher still guides the student or has retired (the student alone).
// During a playback (playbackStore.ts) episodes are not in the recording: the strip follows the playhead with the
// step's own numbers instead, and points to the trajectory viewer, which samples the recorded checkpoints.
import { METRIC } from '../../core/runLog/metricKeys';
import { isTrainedStage } from '../../core/runLog/runLogFold';
import { useRun } from './liveRun';
import { usePlayback } from './playbackStore';

function PlayedStep() {
  const stage = useRun((s) => s.stage);
  const line = useRun((s) => (s.stage && isTrainedStage(s.stage) ? s.steps[s.stage].at(-1) : undefined));
  const retired = useRun((s) => s.retirement !== null);
  if (!stage || !line) return null;
  const success = line[METRIC.rolloutSuccessRate];
  const who =
    stage === 'sft'
      ? 'SFT on the explorer’s demonstrations'
      : stage === 'teacher'
        ? 'the teacher (reading its skill), in training'
        : retired
          ? 'the student alone: the teacher has retired'
          : 'the student, guided by the teacher (OPD) where its schedule says so';
  return (
    <section className="live-episode" aria-label="played step" data-testid="played-step" data-step={line.step}>
      <header>
        <strong>Played</strong> · {stage} step {line.step} · {who}
        {typeof success === 'number' && Number.isFinite(success)
          ? ` · rollout success ${(100 * success).toFixed(1)} %`
          : ''}
      </header>
      <p className="muted">
        A recording keeps each step’s numbers, not its episodes: sample episodes at a recorded checkpoint in the
        trajectory viewer below.
      </p>
    </section>
  );
}

export function LiveEpisodeStrip() {
  const episode = useRun((s) => s.liveEpisode);
  const status = useRun((s) => s.status);
  const playing = usePlayback((p) => p.source !== null);
  if (playing) return <PlayedStep />;
  if (!episode || status === 'idle') return null;
  const who =
    episode.stage === 'teacher'
      ? 'the teacher (reading its skill), in training'
      : episode.teacherActive
        ? 'the student, guided by the teacher (OPD)'
        : 'the student alone: the teacher has retired';
  return (
    <section
      className="live-episode"
      aria-label="live episode"
      data-testid="live-episode"
      data-stage={episode.stage}
      data-step={episode.step}
      data-teacher-active={episode.teacherActive}
    >
      <header>
        <strong>Now</strong> · {episode.stage} step {episode.step} · {who}
      </header>
      <p className="live-goal">
        task: <q>{episode.goal}</q>
      </p>
      <ol className="live-turns">
        {episode.turns.map((t, i) => (
          <li key={i}>
            <code className="live-command">$ {t.command}</code>
            {t.observation ? <span className="live-observation"> → {t.observation}</span> : null}
          </li>
        ))}
      </ol>
      <p className={`live-reward ${episode.success ? 'success' : 'failure'}`}>
        reward {episode.reward.toFixed(2)} · {episode.success ? 'success' : 'failure'}
      </p>
    </section>
  );
}
