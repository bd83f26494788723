// The Overview's story, shown at once: the three recorded arms (public/demo/: retire, OPD throughout, GRPO alone)
// play together on one chart of validation success, with the retirement marker and the teacher's S_T, and under it
// one sentence computed from the recordings. Buttons open the retiring run in the Train view's playback, or queue
// the same three runs to train live in this tab.
import { useEffect, useMemo, useState } from 'react';
import { DEMO_SEED, OVERVIEW_ARMS } from '../../core/experiment/demoRecording';
import { ARMS, armOfDemo } from '../charts/armIdentity';
import { figureTitle } from '../charts/figureTitle';
import { demoStorySentence, percent } from '../../core/experiment/demoStory';
import { METRIC } from '../../core/runLog/metricKeys';
import { finitePoints } from '../charts/downsampleSeries';
import { retirementMarker } from '../charts/gateCharts';
import { MetricChart } from '../charts/MetricChart';
import { fetchPresetCatalog } from '../train/presetCatalog';
import { demoQueue } from './demoQueue';
import { queueStore } from '../runs/storedRuns';
import { openRecording } from './recordingPlayback';
import { demoRecording, type DemoRecording } from './demoRecordings';
import { SeedSpreadLine } from './SeedSpreadLine';

const UNIT: [number, number] = [0, 1];
/** The animation: student steps drawn per tick, and the tick (ms): 400 steps in about 2 s. */
const STEPS_PER_TICK = 20;
const TICK_MS = 100;

export function OverviewStory() {
  const [arms, setArms] = useState<DemoRecording[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [upTo, setUpTo] = useState(0);
  const [queued, setQueued] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    Promise.all(OVERVIEW_ARMS.map((a) => demoRecording(a))).then(
      (r) => live && setArms(r),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, []);
  const total = arms ? Math.max(...arms.map((a) => a.config.student.steps)) : 0;
  useEffect(() => {
    if (!arms || upTo >= total) return;
    const t = setTimeout(() => setUpTo((u) => Math.min(total, u + STEPS_PER_TICK)), TICK_MS);
    return () => clearTimeout(t);
  }, [arms, upTo, total]);
  const retire = arms?.find((a) => a.arm === 'retire-shell') ?? null;
  const trigger = retire?.run.summary?.gate.triggerStep ?? null;
  const sT = retire?.run.summary?.teacherPerformance ?? null;
  const lines = useMemo(
    () =>
      (arms ?? []).map((a) => ({
        name: ARMS[armOfDemo(a.arm)].name,
        color: ARMS[armOfDemo(a.arm)].color,
        dots: false,
        points: finitePoints(
          a.run.steps.student.filter((l) => l.step <= upTo).map((l) => ({ x: l.step, y: l[METRIC.valSuccessRate] })),
        ),
      })),
    [arms, upTo],
  );
  const marker = useMemo(
    () => (trigger !== null && upTo >= trigger ? retirementMarker(trigger) : null),
    [trigger, upTo],
  );
  const threshold = useMemo(() => (sT !== null ? { y: sT, label: `S_T ${percent(sT)}` } : null), [sT]);
  const summaries = arms?.map((a) => a.run.summary);
  const sentence =
    arms && summaries?.every((s) => s !== null)
      ? demoStorySentence({
          retire: arms.find((a) => a.arm === 'retire-shell')!.run.summary!,
          opd: arms.find((a) => a.arm === 'opd-shell')!.run.summary!,
          grpo: arms.find((a) => a.arm === 'grpo-shell')!.run.summary!,
        })
      : null;

  const trainLive = async () => {
    try {
      // the same three runs: retire-shell's config under the three schedules (opd-shell and grpo-shell change only
      // student.schedule), on the recordings' seed, one queue in the runs table
      const catalog = await fetchPresetCatalog();
      const preset = catalog.load('retire-shell');
      const queue = demoQueue(
        preset,
        arms!.map((a) => a.config),
      );
      // enqueue resolves only when the queue has run to its end (queueStore.ts): go to Train while it runs, and
      // say here why it did not go, should it not
      void queueStore
        .getState()
        .enqueue(queue)
        .then(() => {
          const refused = queueStore.getState().error;
          if (refused) setQueued(refused);
        });
      setQueued(`queued ${queue.items.length} runs: see Train`);
      window.location.hash = '#train';
    } catch (e) {
      setQueued(e instanceof Error ? e.message : String(e));
    }
  };
  if (error)
    return (
      <section className="overview-story" aria-label="the story, recorded">
        <p className="muted">The recorded runs did not load ({error}); Train runs them live.</p>
      </section>
    );
  return (
    <section className="overview-story" aria-label="the story, recorded">
      <h2>The story, recorded (seed {DEMO_SEED})</h2>
      <MetricChart
        testId="overview-chart"
        title="validation success of the skill-free student"
        lines={lines}
        figureTitle={figureTitle(
          `Validation success of the skill-free student (${lines.map((l) => l.name).join(', ')})`,
          ['retire-shell'],
          [DEMO_SEED],
        )}
        marker={marker}
        threshold={threshold}
        yDomain={UNIT}
        xLabel="student step"
      />
      <p className="overview-legend">
        {(arms ?? []).map((a) => (
          <span key={a.arm} data-testid="overview-arm" data-arm={a.arm} style={{ color: ARMS[armOfDemo(a.arm)].color }}>
            ■ {ARMS[armOfDemo(a.arm)].name}{' '}
          </span>
        ))}
      </p>
      <p data-testid="overview-sentence">{sentence ?? 'Loading the recorded runs…'}</p>
      <SeedSpreadLine />
      <p className="buttons">
        <button
          type="button"
          data-testid="overview-play"
          onClick={() => {
            window.location.hash = '#train';
            void openRecording('retire-shell');
          }}
        >
          Play it step by step
        </button>
        <button type="button" data-testid="overview-live" disabled={!arms} onClick={() => void trainLive()}>
          Train these three live
        </button>
        {queued ? <span className="muted"> {queued}</span> : null}
      </p>
    </section>
  );
}
