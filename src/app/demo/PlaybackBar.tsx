// The Train view's playback bar: pick a shipped recording (public/demo/) or a stored or imported run, then play it
// as if live — play, pause, step, a 1×–50× speed and a scrubber. The playhead lives in playbackStore.ts.
import { useMemo, useState } from 'react';
import { DEMO_ARMS, DEMO_SEED, type DemoArm } from '../../core/experiment/demoRecording';
import { TRAINED_STAGES, type TrainedStage } from '../../core/runLog/runLogFold';
import { lastFrame } from '../../core/runLog/runPlayback';
import type { MetricsLine } from '../../core/runLog/trainerEvent';
import { playableRuns } from './playableRuns';
import { openRecording } from './recordingPlayback';
import { runRepository, useRuns } from '../runs/storedRuns';
import { runStore, useRun } from '../train/liveRun';
import { INITIAL_RUN_STATE, isActive } from '../train/liveRunState';
import { MAX_SPEED, MIN_SPEED, playbackSource, playbackStore, usePlayback } from '../train/playbackStore';

/** Open a stored (or imported) run of this browser in the playback. */
async function openStoredRun(id: string): Promise<void> {
  const repo = await runRepository();
  const record = await repo.getRun(id);
  if (!record) throw new Error(`stored run ${id} is gone`);
  const steps: Record<TrainedStage, MetricsLine[]> = { sft: [], teacher: [], student: [] };
  for (const m of await repo.metrics(id)) steps[m.stage].push(m.line);
  for (const s of TRAINED_STAGES) steps[s].sort((a, b) => a.step - b.step);
  const events = (await repo.events(id)).sort((a, b) => a.seq - b.seq).map((e) => e.event);
  playbackStore.getState().open(
    playbackSource({ steps, events, summary: record.summary }, record.config, {
      label: record.label ?? `${record.preset} seed ${record.seed}`,
      backend: record.backend,
      recordId: id,
      arm: null,
      // the checkpoints this browser keeps of the run (IndexedDB): the trajectory viewer samples them
      checkpoints: await repo.checkpoints(id).list(),
    }),
  );
}

export function PlaybackBar() {
  const source = usePlayback((s) => s.source);
  const frame = usePlayback((s) => s.frame);
  const playing = usePlayback((s) => s.playing);
  const speed = usePlayback((s) => s.speed);
  const allRuns = useRuns((s) => s.runs);
  // a <select> of thousands of options costs seconds of layout (10,000 imported runs: ≈ 1.3 s in Chromium), so the
  // list holds the most recently written runs, plus the one playing
  const runs = useMemo(() => playableRuns(allRuns, source?.recordId), [allRuns, source?.recordId]);
  const live = useRun((s) => isActive(s.status));
  const [error, setError] = useState<string | null>(null);
  const [choice, setChoice] = useState('');
  // the bar shows the playback opened, here or elsewhere (the Overview, the tour)
  const shown = source ? (source.arm ? `recording:${source.arm}` : `run:${source.recordId ?? ''}`) : choice;
  const choose = (value: string) => {
    setChoice(value);
    setError(null);
    const [kind, id] = [value.slice(0, value.indexOf(':')), value.slice(value.indexOf(':') + 1)];
    const opened =
      kind === 'recording' ? openRecording(id as DemoArm) : kind === 'run' ? openStoredRun(id) : Promise.resolve();
    opened.catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  };
  const last = source ? lastFrame(source.timeline) : 0;
  const at = source?.timeline.positions[frame];
  const p = playbackStore.getState();
  return (
    <section className="playback" aria-label="playback">
      <label>
        play a run{' '}
        <select
          data-testid="playback-source"
          value={shown}
          disabled={live}
          onChange={(e) => choose(e.currentTarget.value)}
        >
          <option value="">— recorded or stored run —</option>
          <optgroup label={`recordings (seed ${DEMO_SEED}, shipped)`}>
            {DEMO_ARMS.map((a) => (
              <option key={a} value={`recording:${a}`}>
                {a}
              </option>
            ))}
          </optgroup>
          {runs.length > 0 ? (
            <optgroup
              label={
                runs.length < allRuns.length
                  ? `runs stored in this browser: the ${runs.length} most recent of ${allRuns.length}`
                  : 'runs stored in this browser'
              }
            >
              {runs.map((r) => (
                <option key={r.id} value={`run:${r.id}`}>
                  {r.label ?? `${r.preset} seed ${r.seed}`} ({r.status})
                </option>
              ))}
            </optgroup>
          ) : null}
        </select>
      </label>
      {source ? (
        <>
          <button type="button" data-testid="playback-play" onClick={() => (playing ? p.pause() : p.play())}>
            {playing ? 'Pause' : 'Play'}
          </button>
          <button type="button" data-testid="playback-back" disabled={frame === 0} onClick={() => p.step(-1)}>
            ◀ step
          </button>
          <button type="button" data-testid="playback-step" disabled={frame >= last} onClick={() => p.step(1)}>
            step ▶
          </button>
          <label>
            speed{' '}
            <input
              type="range"
              data-testid="playback-speed"
              min={MIN_SPEED}
              max={MAX_SPEED}
              value={speed}
              onChange={(e) => p.setSpeed(Number(e.currentTarget.value))}
            />{' '}
            <output data-testid="playback-speed-value">{speed}×</output>
          </label>
          <input
            type="range"
            className="playback-scrubber"
            aria-label="playhead"
            data-testid="playback-scrubber"
            min={0}
            max={last}
            value={frame}
            onChange={(e) => p.seek(Number(e.currentTarget.value))}
          />
          <span data-testid="playback-position" data-stage={at?.stage ?? ''} data-step={at?.step ?? 0}>
            {at?.stage ? `${at.stage} step ${at.step}` : 'before the first step'} · frame {frame}/{last}
          </span>
          <button
            type="button"
            className="link"
            onClick={() => {
              // the view empties: what it showed was the recording, not a run of this tab's
              p.close();
              runStore.getState().show(INITIAL_RUN_STATE);
            }}
          >
            close
          </button>
        </>
      ) : (
        <span className="muted">
          {' '}
          plays the lesson’s recorded runs (or one of yours) at up to {MAX_SPEED}× without training
        </span>
      )}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </section>
  );
}
