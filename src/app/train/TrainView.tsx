// The Train view: pick a preset, a backend and a seed; run the whole pipeline in a Web Worker and watch the
// student's gate (K̄ₘ, ρ, η), success, entropy and the SFT gradient cosine live, with the retirement marked.
import { useDeferredValue, useMemo, useState } from 'react';
import { durationWords, runEta } from '../../core/runLog/runEta';
import { isTrainedStage } from '../../core/runLog/runLogFold';
import { gateCharts, retirementMarker } from '../charts/gateCharts';
import { MetricChart } from '../charts/MetricChart';
import { ChartViewControls, ChartViewProvider } from '../charts/chartView';
import { figureTitle } from '../charts/figureTitle';
import { useThrottledValue } from '../charts/useThrottledValue';
import { Field } from '../Field';
import { BACKEND_CHOICES, type BackendChoice } from '../../core/methodVocabulary';
import { isActive } from './liveRunState';
import { useTrainConfig } from './useTrainConfig';
import { trainForm, useTrainForm } from './trainForm';
import { queueStore, runsStore, useRuns } from '../runs/storedRuns';
import { waitingRiderIds } from '../runs/queueMembers';
import { useStore } from 'zustand';
import { RunsSection } from '../runs/RunsSection';
import { RunSummaryPanel } from './RunSummaryPanel';
import { runStore, useRun } from './liveRun';
import { calibrationSettled } from './startupCalibration';
import { trainSeries } from './trainSeries';
import { ChartExplainers, KnobExplainers, TRAIN_CHARTS } from '../teaching/ChartExplainers';
import { LiveTeachingPanel } from '../teaching/LazyLiveTeachingPanel';
import { StepButton } from '../teaching/StepButton';
import { BackendBadge } from './BackendBadge';
import { LiveEpisodeStrip } from './LiveEpisodeStrip';
import { PlaybackBar } from '../demo/PlaybackBar';
import { usePlayback } from './playbackStore';
import { useRaceRecording } from '../demo/raceRecording';
import { PopulationChart } from './PopulationChart';
import { HUE } from '../charts/chartPalette';

const BACKEND_LABELS: Record<BackendChoice, string> = {
  auto: 'auto',
  webgpu: 'WebGPU',
  webgl: 'WebGL',
  wasm: 'WebAssembly',
  cpu: 'CPU (slow)',
};

function RunControls() {
  const status = useRun((s) => s.status);
  const { catalog, preset, config, overrides, seedError, configError, errors } = useTrainConfig();
  const presetName = useTrainForm((f) => f.preset);
  const backend = useTrainForm((f) => f.backend);
  const seed = useTrainForm((f) => f.seed);
  const overrideText = useTrainForm((f) => f.overrides);
  const setForm = trainForm.getState().set;
  const active = isActive(status);

  // a Start clicked while the page still measures its wasm thread count waits for the measurement (a few seconds
  // at most): the worker's thread count is fixed when it starts
  const [starting, setStarting] = useState(false);
  const start = async () => {
    if (!config || starting) return;
    setStarting(true);
    try {
      await calibrationSettled();
      // a stored run: saved in this browser as it goes (src/app/runs), resumable after a reload
      await runsStore.getState().startRun({ preset: presetName, overrides, config, backendChoice: backend });
    } finally {
      setStarting(false);
    }
  };

  return (
    <form
      className="run-controls"
      aria-label="run controls"
      onSubmit={(e) => {
        e.preventDefault();
        void start();
      }}
    >
      <div className="fields">
        <Field label="preset">
          {(id) => (
            <select
              id={id}
              value={presetName}
              disabled={active || !catalog}
              onChange={(e) => setForm({ preset: e.currentTarget.value })}
            >
              {(catalog?.names ?? [presetName]).map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="backend" hint="auto: WebGPU → WebGL → WebAssembly → CPU, skipping software GPUs">
          {(id, hintId) => (
            <select
              id={id}
              aria-describedby={hintId}
              value={backend}
              disabled={active}
              onChange={(e) => setForm({ backend: e.currentTarget.value as BackendChoice })}
            >
              {BACKEND_CHOICES.map((b) => (
                <option key={b} value={b}>
                  {BACKEND_LABELS[b]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="seed" invalid={seedError !== null}>
          {(id) => (
            <input
              id={id}
              type="text"
              inputMode="numeric"
              value={seed}
              disabled={active}
              aria-invalid={seedError !== null}
              onChange={(e) => setForm({ seed: e.currentTarget.value })}
            />
          )}
        </Field>
        <Field
          label="overrides"
          wide
          invalid={configError !== null}
          hint="one key=value per line, applied over the preset as npm run experiment -- --set does"
        >
          {(id, hintId) => (
            <textarea
              id={id}
              rows={2}
              value={overrideText}
              disabled={active}
              spellCheck={false}
              placeholder={'student.schedule=never\nstudent.lambdaOpd=0.2'}
              aria-invalid={configError !== null}
              aria-describedby={hintId}
              onChange={(e) => setForm({ overrides: e.currentTarget.value })}
            />
          )}
        </Field>
      </div>
      <div className="buttons">
        <button
          type="submit"
          className="primary"
          data-testid="run-start"
          disabled={active || starting || config === null}
          title={starting ? "measuring this machine's wasm thread count first (a few seconds)" : undefined}
        >
          Start
        </button>
        {status === 'paused' || status === 'pausing' ? (
          <button type="button" onClick={() => runStore.getState().resume()}>
            Resume
          </button>
        ) : (
          <button type="button" disabled={status !== 'running'} onClick={() => runStore.getState().pause()}>
            Pause
          </button>
        )}
        <button type="button" disabled={!active || status === 'stopping'} onClick={() => runStore.getState().stop()}>
          Stop
        </button>
      </div>
      {preset ? (
        <p className="preset-description">
          {preset.description}
          {preset.sweep
            ? ' (A sweep preset: Start runs its base configuration; queue the whole sweep under “Queue an ablation”.)'
            : ''}
        </p>
      ) : null}
      {errors.map((m) => (
        <p key={m} role="alert" className="error">
          {m}
        </p>
      ))}
    </form>
  );
}

function RunStatusLine() {
  const s = useRun((st) => st);
  // a stored run shown here while another tab trains it (runLocks.ts): read-only, redrawn as that tab goes on
  const remote = useRuns((r) => (s.recordId !== null && !isActive(s.status) ? r.elsewhere[s.recordId] : undefined));
  const playback = usePlayback((p) => p.source?.label ?? null);
  if (s.status === 'idle') return <p className="muted">No run yet. Pause holds the run at the next step boundary.</p>;
  const pct = s.totalSteps > 0 ? Math.round((100 * s.step) / s.totalSteps) : 0;
  return (
    <div className="run-status" aria-label="run status">
      <span
        className={`badge ${remote ? 'running' : s.status === 'interrupted' ? 'stopped' : s.status}`}
        data-testid="run-status"
      >
        {remote
          ? 'running in another tab'
          : playback
            ? `playback${s.status === 'completed' ? ' (end)' : ''}`
            : s.status}
      </span>
      {playback ? <span className="muted">{playback}</span> : null}
      {s.status === 'interrupted' && !remote && !playback ? <ContinueRun recordId={s.recordId} /> : null}
      {remote ? (
        <span className="muted" data-testid="run-remote-step">
          {remote.stage} {remote.step}/{remote.totalSteps} (read-only here)
        </span>
      ) : null}
      <span data-testid="run-backend">backend: {s.backend ?? '…'}</span> <BackendBadge backend={s.backend} />
      {s.stage && s.totalSteps > 0 && isActive(s.status) ? (
        <span data-testid="run-progress">
          {s.stage} {s.step}/{s.totalSteps}
          <progress max={100} value={pct} />
        </span>
      ) : null}
      {isActive(s.status) && !playback && !remote ? <RunEta /> : null}
      {s.retirement ? <span className="retired">teacher retired at step {s.retirement.triggerStep}</span> : null}
      {s.error ? (
        <p role="alert" className="error">
          {s.error.name}: {s.error.message}
        </p>
      ) : null}
      {s.storageError ? (
        <p role="alert" className="error" data-testid="storage-error">
          Not saved in this browser — {s.storageError.name}: {s.storageError.message}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The running stage's time left, from its own recent steps (core/runLog/runEta.ts); later stages are named with their
 * step counts, since an SFT step's time says nothing about a student step's.
 */
function RunEta() {
  const stage = useRun((st) => st.stage);
  const step = useRun((st) => st.step);
  const totalSteps = useRun((st) => st.totalSteps);
  const steps = useRun((st) => st.steps);
  const config = useRun((st) => st.config);
  if (stage === null || !isTrainedStage(stage) || config === null) return null;
  const stageSteps = {
    sft: config.sft.steps,
    teacher: config.teacher.checkpoint ? 0 : config.teacher.steps,
    student: config.student.steps,
  };
  const eta = runEta(stage, step, totalSteps, steps[stage], stageSteps);
  if (eta === null)
    return (
      <span className="muted" data-testid="run-eta">
        time left: measuring the first steps…
      </span>
    );
  const later = eta.laterStages.map((l) => `${l.stage} (${l.steps} steps)`).join(', then ');
  return (
    <span
      className="muted"
      data-testid="run-eta"
      title={`${eta.secondsPerStep.toFixed(2)} s a step, the mean of the last ${eta.measuredSteps} steps`}
    >
      about {durationWords(eta.stageSeconds)} left in {stage === 'sft' ? 'SFT' : `the ${stage} stage`}
      {later ? `; then ${later}` : ''}
    </span>
  );
}

/**
 * Continue for an interrupted run (browser storage filled up, a reload), as the runs table offers it: its stored
 * record is interrupted with a checkpoint, and it is no rider waiting for a lane of its queue.
 */
function ContinueRun({ recordId }: { recordId: string | null }) {
  const record = useRuns((r) => r.runs.find((x) => x.id === recordId) ?? null);
  const queues = useStore(queueStore, (q) => q.queues);
  if (record === null || record.status !== 'interrupted' || record.checkpoint === null) return null;
  if (waitingRiderIds(queues, [record]).has(record.id)) return null;
  return (
    <button
      type="button"
      data-testid="run-continue"
      title="resume this run from its last stored checkpoint"
      onClick={() => void runsStore.getState().resumeRun(record.id)}
    >
      continue
    </button>
  );
}

const ZERO_LINE = { y: 0, label: '0' };
const UNIT_RANGE: [number, number] = [0, 1];

/** How often the live charts redraw while a run trains (ms). */
const CHART_REFRESH_MS = 1000;

function RunCharts() {
  // each slice the charts draw, subscribed separately: a step event re-renders only what changed
  const windows = useRun((s) => s.windows);
  const evaluations = useRun((s) => s.evaluations);
  const steps = useRun((s) => s.steps);
  const cfg = useRun((s) => s.config);
  const retirement = useRun((s) => s.retirement);
  // a live run that trains what a shipped recording trained races it (the recording drawn faintly behind)
  const race = useRaceRecording(
    cfg,
    usePlayback((p) => p.source === null),
  );
  // while the run goes, the charts redraw at most once a second, in a transition (React renders them in slices
  // between other work instead of one long task); a held or finished run shows its last state at once
  const training = useRun((s) => s.status === 'running' || s.status === 'starting' || s.status === 'pausing');
  const throttled = useThrottledValue(
    useMemo(() => ({ windows, evaluations, steps }), [windows, evaluations, steps]),
    training ? CHART_REFRESH_MS : 0,
  );
  const slices = useDeferredValue(throttled);
  const series = useMemo(() => trainSeries(slices), [slices]);
  const gate = cfg?.student.gate;
  /** a downloaded figure's title: what it plots, the run's preset and seed */
  const fig = (what: string) => (cfg ? figureTitle(what, [cfg.name], [cfg.seed]) : what);
  const delta = gate?.alignmentThreshold;
  const gamma = gate?.competenceThreshold;
  const triggerStep = retirement?.triggerStep;
  // stable props: a chart (memo) redraws only when what it draws changed, not on every message from the worker
  const gateChart = useMemo(
    () => gateCharts(series, delta !== undefined && gamma !== undefined ? { delta, gamma } : null, triggerStep),
    [series, delta, gamma, triggerStep],
  );
  const marker = useMemo(() => retirementMarker(triggerStep), [triggerStep]);
  const lines = useMemo(
    () => ({
      success: [
        ...(race
          ? [{ name: `recording (${race.arm})`, points: race.validationSuccess, color: HUE.faint, dots: false }]
          : []),
        { name: 'rollout', points: series.rolloutSuccess, color: HUE.cyan, dots: false },
        { name: 'validation', points: series.validationSuccess, color: HUE.ink },
      ],
      entropy: [{ name: 'entropy', points: series.entropy, color: HUE.pink, dots: false }],
      cosine: [{ name: 'cosine', points: series.gradientCosine, color: HUE.orange }],
    }),
    [series, race],
  );
  return (
    <div className="charts" aria-label="training charts">
      <MetricChart
        testId="train-window-mean"
        title="K̄ₘ — mean teacher–student gap per window"
        figureTitle={fig('Mean teacher–student gap per window (K̄ₘ)')}
        {...gateChart.windowMean}
        note="Student stage. K = −g, averaged over W steps; no windows after retirement (the teacher is not run)."
      />
      <MetricChart
        testId="train-alignment"
        title="ρ — alignment progress"
        figureTitle={fig('Alignment progress ρ')}
        {...gateChart.alignment}
      />
      <MetricChart
        testId="train-competence"
        title="η — competence ratio"
        figureTitle={fig('Competence ratio η')}
        {...gateChart.competence}
      />
      <MetricChart
        testId="train-success"
        title="success rate"
        figureTitle={fig('Success rate, training rollouts and validation')}
        lines={lines.success}
        marker={marker}
        yDomain={UNIT_RANGE}
        note="Student stage: training rollouts (blue) and validation (black)."
      />
      <MetricChart
        testId="train-entropy"
        title="entropy (nats/token)"
        figureTitle={fig('Entropy of the sampled action tokens (nats/token)')}
        lines={lines.entropy}
        marker={marker}
        note="Student stage: mean entropy of the sampled action tokens."
      />
      <MetricChart
        testId="train-grad-cosine"
        title="cos(∇ action loss, ∇ observation loss)"
        figureTitle={fig('Cosine of the action and observation loss gradients')}
        lines={lines.cosine}
        threshold={ZERO_LINE}
        xLabel="SFT step"
        note="SFT stage (before the teacher exists), measured every sft.geometryEvery steps."
      />
    </div>
  );
}

function RunLog() {
  const log = useRun((s) => s.log);
  if (log.length === 0) return null;
  return (
    <details className="run-log" open>
      <summary>Run log ({log.length})</summary>
      {/* it scrolls: focusable, so a keyboard can scroll it too */}
      <ol tabIndex={0} aria-label="run log, latest 40 lines">
        {log.slice(-40).map((e, i) => (
          <li key={i} className={e.level}>
            {e.text}
          </li>
        ))}
      </ol>
    </details>
  );
}

export function TrainView() {
  return (
    <section className="view" aria-labelledby="train-title">
      <h2 id="train-title">Train</h2>
      <p className="lead">
        Demonstrations → SFT → a skill-conditioned teacher (its score is S_T) → the skill-free student with GRPO +
        λ·OPD, whose teacher retires when ρ ≤ δ and η ≥ γ. Everything runs in a Web Worker in this tab.
      </p>
      <RunControls />
      <PlaybackBar />
      <StepButton />
      <KnobExplainers />
      <RunStatusLine />
      <LiveEpisodeStrip />
      {/* the run's charts and the queue's population chart share one smoothing, scale and zoom */}
      <ChartViewProvider>
        <ChartViewControls label="training charts" />
        <RunCharts />
        <PopulationChart />
      </ChartViewProvider>
      <ChartExplainers charts={TRAIN_CHARTS} />
      <LiveTeachingPanel />
      <RunSummaryPanel />
      <RunLog />
      <RunsSection />
    </section>
  );
}
