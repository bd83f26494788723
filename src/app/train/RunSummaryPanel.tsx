// The finished run's key numbers (summary.json's content): test success, pass@k, S_T, the gate's outcome and the
// step time before and after the teacher retired, and where a step's time goes (StepTimeBar.tsx).
import { handToReplay } from '../replay/replayInbox';
import { metricsJsonl, replaySettingsFor } from './runExport';
import { useState } from 'react';
import { runRepository } from '../runs/storedRuns';
import { runZip } from '../runs/runExportZip';
import { saveBlob, saveText } from '../files/download';
import { verlSnippet } from '../runs/verlSnippet';
import { isActive } from './liveRunState';
import { runStore, useRun } from './liveRun';
import { StepTimeBar } from './StepTimeBar';

/** The run as the CLI's run folder (zip): config, every stage's metrics, events, summary, checkpoints. */
async function downloadRunFolder(): Promise<void> {
  const s = runStore.getState();
  if (s.recordId) {
    const zip = await runZip(await runRepository(), s.recordId);
    if (zip) saveBlob(new Blob([zip.bytes as BlobPart], { type: 'application/zip' }), zip.name);
  }
}

/**
 * Save the run's folder (zip) or the student's metrics.jsonl, replay the gate over it in the replay view (it must
 * agree with the run), or take its gate/OPD settings to the RetireOPD code.
 */
function RunExport() {
  const config = useRun((st) => st.config);
  const summary = useRun((st) => st.summary);
  const recordId = useRun((st) => st.recordId);
  const active = isActive(useRun((st) => st.status));
  const [verl, setVerl] = useState<string | null>(null);
  if (!config || active) return null;
  const lines = () => runStore.getState().steps.student;
  const fileName = `${config.name}-seed${config.seed}-metrics.jsonl`;
  const download = () => saveText(metricsJsonl(lines()), fileName, 'application/x-ndjson');
  const teacherPerformance = summary?.teacherPerformance ?? null;
  const settings = replaySettingsFor(config, teacherPerformance);
  const replay = () => {
    if (!settings) return;
    const text = metricsJsonl(lines());
    const blob = new Blob([text], { type: 'application/jsonl' });
    handToReplay({ logs: [{ name: fileName, bytes: blob.size, blob }], settings });
    window.location.hash = 'replay';
  };
  return (
    <div className="buttons export">
      <button
        type="button"
        data-testid="download-run-folder"
        onClick={() => void downloadRunFolder()}
        disabled={recordId === null}
        title="config.json, metrics.jsonl, sft.jsonl, teacher.jsonl, events.jsonl, summary.json, checkpoints/ — the CLI's layout"
      >
        Download run folder (.zip)
      </button>
      <button type="button" onClick={download} disabled={lines().length === 0}>
        Download metrics.jsonl
      </button>
      <button
        type="button"
        onClick={replay}
        disabled={!settings || lines().length === 0}
        title={
          settings
            ? 'replay the gate over this run’s own log'
            : `schedule ${config.student.schedule} does not depend on the log`
        }
      >
        Replay this run’s gate
      </button>
      <button type="button" onClick={() => setVerl(verl ? null : verlSnippet(config, teacherPerformance))}>
        {verl ? 'Hide' : 'Export'} gate/OPD settings for RetireOPD (verl)
      </button>
      {verl ? (
        <pre className="verl-snippet" data-testid="verl-snippet">
          {verl}
        </pre>
      ) : null}
    </div>
  );
}

const pct = (x: number | null | undefined) =>
  typeof x === 'number' && Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '—';
const ms = (x: number | null) => (x === null ? '—' : `${x.toFixed(0)} ms`);

export function RunSummaryPanel() {
  const s = useRun((st) => st.summary);
  // a run that failed without a summary still has its folder to download
  if (!s) return <RunExport />;
  return (
    <section className="summary" aria-label="run summary">
      <div className={`verdict ${s.gate.retired ? 'retired' : 'active'}`}>
        {s.status === 'completed' ? 'Run completed' : s.status === 'interrupted' ? 'Run stopped' : 'Run failed'} —{' '}
        {s.gate.retired ? `the teacher retired at step ${s.gate.triggerStep}` : 'the teacher did not retire'}
      </div>
      <dl>
        <dt>test success</dt>
        <dd data-testid="summary-test-success">
          {Number.isFinite(s.test.successRate)
            ? pct(s.test.successRate)
            : `– (${s.status === 'completed' ? 'not measured' : `the run ${s.status === 'failed' ? 'failed' : 'was stopped'} before its test evaluation`})`}
        </dd>
        <dt>pass@k</dt>
        <dd>
          {Object.entries(s.test.passAtK)
            .map(([k, v]) => `@${k} ${pct(v)}`)
            .join(' · ') || '—'}
        </dd>
        <dt>S_T (teacher)</dt>
        <dd>{pct(s.teacherPerformance)}</dd>
        <dt>teacher forwards run / skipped</dt>
        <dd>
          {s.gate.teacherForwardRun} / {s.gate.teacherForwardSkipped}
        </dd>
        <dt>ms per student step before / after retirement</dt>
        <dd>
          {ms(s.stepMs.beforeRetirement)} / {ms(s.stepMs.afterRetirement)}
        </dd>
        <dt>wall time · backend</dt>
        <dd>
          {s.wallSeconds.toFixed(1)} s · {s.backend}
        </dd>
      </dl>
      <StepTimeBar />
      <RunExport />
    </section>
  );
}
