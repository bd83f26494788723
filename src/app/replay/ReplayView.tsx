// The engineers' view: replay the RetireOPD retirement gate (docs/METHODS.md §4) over the log of a real verl/TRL run,
// in the page (the core replay is pure TypeScript), with the same defaults and results as `npm run replay`.
import { useEffect, useMemo, useState } from 'react';
import { LogFilePicker, type LoadedLog } from './LogFilePicker';
import { ReplayResults } from './ReplayResults';
import { ReplaySettingsForm } from './ReplaySettingsForm';
import { replayInbox } from './replayInbox';
import {
  DEFAULT_SETTINGS,
  replaySeries,
  runReplay,
  settingsToOptions,
  thresholds,
  type ReplayOutcome,
  type ReplaySettings,
} from './replayModel';

interface Ran {
  outcome: ReplayOutcome;
  /** the settings the outcome was computed with (the form may have changed since) */
  settings: ReplaySettings;
  files: string[];
  /** the logs the outcome was computed from (the what-if re-runs the gate over them) */
  sources: LoadedLog[];
}

export function ReplayView() {
  // a log handed over by another view (Train's "replay this run") is replayed at once
  const [handoff] = useState(() => replayInbox.getState().pending);
  const [logs, setLogs] = useState<LoadedLog[]>(handoff?.logs ?? []);
  const [settings, setSettings] = useState<ReplaySettings>(handoff?.settings ?? DEFAULT_SETTINGS);
  const [ran, setRan] = useState<Ran | null>(() =>
    handoff
      ? {
          outcome: runReplay(handoff.logs, handoff.settings),
          settings: handoff.settings,
          files: handoff.logs.map((l) => l.name),
          sources: handoff.logs,
        }
      : null,
  );
  useEffect(() => {
    if (handoff) replayInbox.setState({ pending: null });
  }, [handoff]);

  const run = (files = logs, with_ = settings) => {
    if (files.length === 0) return;
    setRan({ outcome: runReplay(files, with_), settings: with_, files: files.map((f) => f.name), sources: files });
  };
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
