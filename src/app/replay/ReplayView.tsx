// The engineers' view: replay the RetireOPD retirement gate (docs/METHODS.md §4) over the log of a real verl/TRL run,
// in the page (the core replay is pure TypeScript), with the same defaults and results as `npm run replay`.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { LogSource } from '../../core/replay/logRecords';
import { LogFilePicker, size, type LoadedLog } from '../files/LogFilePicker';
import { ReplayResults } from './ReplayResults';
import { ReplaySettingsForm } from './ReplaySettingsForm';
import { replayInbox } from './replayInbox';
import { replayInWorker, type ReplayProgress } from './replayClient';
import {
  DEFAULT_SETTINGS,
  replaySeries,
  settingsToOptions,
  thresholds,
  type ReplayOutcome,
  type ReplaySettings,
} from './replayModel';

/**
 * The what-if re-runs the gate over the whole text on this page, once per setting it shows: offered for logs up to
 * this size (larger ones replay in the worker, but their what-if would hold the page for seconds per move).
 */
const WHAT_IF_MAX_BYTES = 4 * 1024 * 1024;

interface Ran {
  outcome: ReplayOutcome;
  /** the settings the outcome was computed with (the form may have changed since) */
  settings: ReplaySettings;
  files: string[];
  /** the logs' texts for the what-if (null: too large to re-run on the page) */
  sources: LogSource[] | null;
}

/** Texts of small logs for the what-if; null when they are too large together. */
async function whatIfSources(files: readonly LoadedLog[]): Promise<LogSource[] | null> {
  if (files.reduce((n, f) => n + f.bytes, 0) > WHAT_IF_MAX_BYTES) return null;
  return Promise.all(files.map(async (f) => ({ name: f.name, text: await f.blob.text() })));
}

export function ReplayView() {
  // a log handed over by another view (Train's "replay this run", the tour's what-if stop) is replayed at once, whether
  // it came before this view opened or while it is open
  const handoff = useStore(replayInbox, (s) => s.pending);
  const [logs, setLogs] = useState<LoadedLog[]>(() => replayInbox.getState().pending?.logs ?? []);
  const [settings, setSettings] = useState<ReplaySettings>(
    () => replayInbox.getState().pending?.settings ?? DEFAULT_SETTINGS,
  );
  const [ran, setRan] = useState<Ran | null>(null);
  /** the replay streaming in the worker now, with its bytes read (null: none) */
  const [reading, setReading] = useState<ReplayProgress | null>(null);
  const [workerError, setWorkerError] = useState<string | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const run = (files = logs, with_ = settings) => {
    if (files.length === 0) return;
    setWorkerError(null);
    setReading({ bytesRead: 0, totalBytes: files.reduce((n, f) => n + f.bytes, 0) });
    replayInWorker(
      files.map((f) => ({ name: f.name, blob: f.blob })),
      with_,
      (p) => mounted.current && setReading(p),
    )
      .then(async (outcome) => {
        if (outcome === null || !mounted.current) return; // replaced by a later replay
        const sources = outcome.ok ? await whatIfSources(files) : null;
        if (!mounted.current) return;
        setRan({ outcome, settings: with_, files: files.map((f) => f.name), sources });
        setReading(null);
      })
      .catch((e: unknown) => {
        if (!mounted.current) return;
        setReading(null);
        setWorkerError(e instanceof Error ? e.message : String(e));
      });
  };
  useEffect(() => {
    if (!handoff) return;
    replayInbox.setState({ pending: null });
    // the form shows what is replayed; replaying starts a worker and reports through state: an effect of the
    // handoff, once per log handed over
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setLogs(handoff.logs);
    setSettings(handoff.settings);
    run(handoff.logs, handoff.settings);
    // once, for the log handed over when the view opened (`run` is a new closure each render)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [handoff]);
  const onLoad = (files: LoadedLog[]) => {
    setLogs(files);
    // a new file replays at once when S_T is already set; otherwise the form asks for it
    if (settings.teacherPerformance.trim() !== '') run(files, settings);
    else setRan(null);
  };

  const outcome = ran?.outcome ?? null;
  const series = useMemo(() => (outcome?.ok ? replaySeries(outcome.result) : null), [outcome]);
  const failure = outcome && !outcome.ok ? outcome.failure : null;
  // the options the outcome was computed with (valid: the replay ran), one object per replay for the what-if
  const ranOptions = useMemo(() => (ran && ran.outcome.ok ? settingsToOptions(ran.settings) : null), [ran]);
  const stale =
    ran !== null &&
    (JSON.stringify(ran.settings) !== JSON.stringify(settings) ||
      ran.files.join('\n') !== logs.map((l) => l.name).join('\n'));

  return (
    <section className="view" aria-labelledby="replay-title">
      <h2 id="replay-title">Gate replay</h2>
      <p className="lead">
        When would the teacher have retired in your run? Load the log of a real training run — verl’s file logger
        (JSONL), TRL’s <code>trainer_state.json</code>, TensorBoard/W&amp;B CSV exports (several at once) or this lab’s{' '}
        <code>metrics.jsonl</code> — and replay the gate exactly as <code>npm run replay</code> does. Nothing leaves
        this page.
      </p>
      <div className="replay-inputs">
        <LogFilePicker logs={logs} onLoad={onLoad} />
        <ReplaySettingsForm
          settings={settings}
          onChange={setSettings}
          onSubmit={() => run()}
          invalid={failure?.kind === 'setting' ? failure.setting : null}
          canRun={logs.length > 0}
        />
      </div>
      {reading ? (
        <div className="replay-progress" data-testid="replay-progress">
          <progress value={reading.bytesRead} max={Math.max(1, reading.totalBytes)} aria-label="log read" />{' '}
          <span className="muted">
            reading {size(reading.bytesRead)} of {size(reading.totalBytes)} (in a worker: the page stays usable)
          </span>
        </div>
      ) : null}
      {workerError ? (
        <div role="alert" className="error-box">
          <strong>Replay failed</strong>
          <pre>{workerError}</pre>
        </div>
      ) : null}
      {failure ? (
        <div role="alert" className="error-box" data-testid="replay-error">
          <strong>
            {failure.kind === 'input'
              ? 'The log cannot be replayed'
              : failure.kind === 'setting'
                ? 'Check the settings'
                : 'Replay failed'}
          </strong>
          <pre>{failure.message}</pre>
        </div>
      ) : null}
      {stale && outcome?.ok ? (
        <p className="muted">Settings or files changed since this replay: run it again to update.</p>
      ) : null}
      {outcome?.ok && series && ran && ranOptions ? (
        <ReplayResults
          result={outcome.result}
          series={series}
          {...thresholds(ran.settings)}
          sources={ran.sources}
          options={ranOptions}
        />
      ) : null}
    </section>
  );
}
