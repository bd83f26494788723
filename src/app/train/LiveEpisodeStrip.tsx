// The live episode strip: while a run trains, one episode of the current training rollout as the environment shows
// it — the task, each command and the observation it got back, the reward — so a class sees what the agent does,
// not only curves. The worker sends at most one episode a second (the trainer picks it; the page only draws it).
// In the student stage it says whether the teacher still guides the student or has retired (the student alone).
import { useRun } from './liveRun';

export function LiveEpisodeStrip() {
  const episode = useRun((s) => s.liveEpisode);
  const status = useRun((s) => s.status);
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
