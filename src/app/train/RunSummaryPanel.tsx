// The finished run's key numbers (summary.json's content): test success, pass@k, S_T, the gate's outcome and the
// step time before and after the teacher retired.
import { useRun } from './runStoreInstance';

const pct = (x: number | null | undefined) => (typeof x === 'number' && Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '—');
const ms = (x: number | null) => (x === null ? '—' : `${x.toFixed(0)} ms`);

export function RunSummaryPanel() {
  const s = useRun((st) => st.summary);
  if (!s) return null;
  return (
    <section className="summary" aria-label="run summary">
      <div className={`verdict ${s.gate.retired ? 'retired' : 'active'}`}>
        {s.status === 'completed' ? 'Run completed' : s.status === 'interrupted' ? 'Run stopped' : 'Run failed'} —{' '}
        {s.gate.retired ? `the teacher retired at step ${s.gate.triggerStep}` : 'the teacher did not retire'}
      </div>
      <dl>
        <dt>test success</dt>
        <dd data-testid="summary-test-success">{pct(s.test.successRate)}</dd>
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
    </section>
  );
}
