// The trajectory viewer: sample episodes from the held run's current student (and the teacher with its skill) on
// chosen tasks, and show every token coloured by class (prompt, skill, action head, argument, observation), the
// environment's own rendering beside it, and on every action token the student's and the teacher's log-probs with
// their difference g = log π_T − log π_θ as a heat map — where the two disagree, and how that closes with training.
import { useState, type ReactNode } from 'react';
import { TOKEN_CLASS_NAMES } from '../../core/env/types';
import type { Split } from '../../core/env/types';
import type { ProbeEpisode, ProbeToken } from '../../engine/trajectoryProbe';
import { Select } from '../Select';
import { ExplainButton } from './ExplainButton';
import { requestProbe, type ProbeAnswer } from './probeClient';
import './teaching.css';

/** The splits offered, the default (validation) first. */
const PROBE_SPLITS: readonly Split[] = ['validation', 'test', 'train'];

const f3 = (x: number | null) => (x === null ? '—' : x.toFixed(3));

/** Heat of a token's gap g = teacher − student: red where the teacher finds the token less likely, blue more. */
function heat(token: ProbeToken): string | undefined {
  if (token.student === null || token.teacher === null) return undefined;
  const g = token.teacher - token.student;
  const a = Math.min(1, Math.abs(g) / 3);
  return g < 0
    ? `rgb(220 38 38 / ${(0.15 + 0.75 * a).toFixed(2)})`
    : `rgb(37 99 235 / ${(0.15 + 0.75 * a).toFixed(2)})`;
}

function parseTasks(text: string): number[] | null {
  const parts = text.split(/[\s,]+/).filter((p) => p !== '');
  const ids = parts.map(Number);
  return ids.length > 0 && ids.length <= 8 && ids.every((i) => Number.isSafeInteger(i) && i >= 0) ? ids : null;
}

function Episode({ e }: { e: ProbeEpisode }) {
  return (
    <article
      className="probe-episode"
      data-testid="probe-episode"
      data-policy={e.policy}
      data-gap={e.gap ?? ''}
      aria-label={`${e.policy} episode on task ${e.taskIndex}`}
    >
      <header>
        <strong>{e.policy === 'student' ? 'Student' : 'Teacher (with its skill)'}</strong> · {e.split} task #
        {e.taskIndex}: “{e.goal}” · {e.success ? 'success' : 'failure'} (reward {e.reward.toFixed(2)}, {e.turns} turns)
        · episode g = {f3(e.gap)}
        {e.policy === 'teacher' ? <span className="muted"> · skill: {e.skill}</span> : null}
      </header>
      <div className="probe-body">
        <p className="probe-tokens">
          {e.tokens.map((t, i) => {
            const cls = TOKEN_CLASS_NAMES[t.cls] ?? 'special';
            const scored = t.student !== null && t.teacher !== null;
            return (
              <span
                key={i}
                className={`tok tok-${cls}`}
                data-testid="probe-token"
                data-class={cls}
                data-student={t.student ?? ''}
                data-teacher={t.teacher ?? ''}
                style={scored ? { background: heat(t) } : undefined}
                title={
                  scored
                    ? `${cls} “${t.text}”: log πθ = ${f3(t.student)}, log πT = ${f3(t.teacher)}, g = ${f3((t.teacher ?? 0) - (t.student ?? 0))}`
                    : `${cls} “${t.text}”`
                }
              >
                {t.text}
              </span>
            );
          })}
        </p>
        <pre className="probe-rendering" aria-label="environment rendering">
          {e.rendering}
        </pre>
      </div>
    </article>
  );
}

/** What a sample asks for (the live run's channel and a recorded checkpoint's worker take the same). */
export type SampleRequest = Parameters<typeof requestProbe>[0];

/**
 * `held`: whether sampling can run now. `sample`: where episodes come from — by default the held run's training
 * worker; a recorded run's playback passes its checkpoint's sampler (`heading` then names the checkpoint).
 */
export function TrajectoryViewer({
  held,
  sample: sampleFrom = requestProbe,
  heading = 'Trajectories at this point of the run',
  extra = null,
}: {
  held: boolean;
  sample?: (request: SampleRequest) => Promise<ProbeAnswer>;
  heading?: string;
  extra?: ReactNode;
}) {
  const [split, setSplit] = useState<Split>('validation');
  const [tasks, setTasks] = useState('0, 1');
  const [seed, setSeed] = useState('0');
  const [teacher, setTeacher] = useState(true);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<ProbeAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ids = parseTasks(tasks);
  const seedValue = Number(seed);
  const sample = async () => {
    if (!ids || !Number.isSafeInteger(seedValue) || seedValue < 0) return;
    setBusy(true);
    setError(null);
    try {
      setAnswer(await sampleFrom({ split, taskIndices: ids, seed: seedValue, teacherEpisodes: teacher }));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="trajectory-viewer" aria-label="trajectory viewer">
      <h3>
        {heading} <ExplainButton id="estimator" />
      </h3>
      <div className="probe-controls">
        {extra}
        <label>
          split <Select value={split} choices={PROBE_SPLITS} onChange={setSplit} />
        </label>
        <label>
          tasks{' '}
          <input
            value={tasks}
            aria-invalid={ids === null}
            onChange={(e) => setTasks(e.currentTarget.value)}
            style={{ width: '7rem' }}
          />
        </label>
        <label>
          sampling seed{' '}
          <input value={seed} onChange={(e) => setSeed(e.currentTarget.value)} style={{ width: '4rem' }} />
        </label>
        <label>
          <input type="checkbox" checked={teacher} onChange={(e) => setTeacher(e.currentTarget.checked)} /> also the
          teacher, with its skill
        </label>
        <button
          type="button"
          data-testid="probe-sample"
          disabled={!held || busy || ids === null}
          onClick={() => void sample()}
        >
          {busy ? 'Sampling…' : 'Sample trajectories'}
        </button>
        {!held ? <span className="muted">pause the run in the teacher or student stage to look inside</span> : null}
      </div>
      <p className="probe-legend">
        {(['prompt', 'skill', 'actionHead', 'actionArg', 'observation'] as const).map((c) => (
          <span key={c} className={`tok tok-${c}`}>
            {c === 'actionHead' ? 'action head' : c === 'actionArg' ? 'argument' : c}
          </span>
        ))}{' '}
        · background of action tokens: g = log π<sub>T</sub> − log π<sub>θ</sub> (
        <span style={{ background: 'rgb(220 38 38 / 0.6)' }}>teacher less likely</span>,{' '}
        <span style={{ background: 'rgb(37 99 235 / 0.6)' }}>teacher more likely</span>); hover a token for its numbers.
      </p>
      {error ? (
        <p role="alert" className="error" data-testid="probe-error">
          {error}
        </p>
      ) : null}
      {answer ? (
        <div data-testid="probe-result">
          <p className="muted">
            Sampled at {answer.stage ?? '?'} step {answer.step ?? '?'}.
          </p>
          {answer.episodes.map((e, i) => (
            <Episode key={i} e={e} />
          ))}
        </div>
      ) : null}
    </section>
  );
}
