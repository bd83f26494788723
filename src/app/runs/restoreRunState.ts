// A stored run back into the Train view's RunState (charts, summary, log), e.g. after a reload or to resume it: its
// stored events go through the same fold as a live run's (core/runLog/runLogFold.ts), so both read the same.
import { foldRunLog } from '../../core/runLog/runLogFold';
import { withSkippedFlag } from '../../core/runLog/skippedTeacherForwards';
import type { RunStatus, RunState } from '../train/liveRunState';
import { INITIAL_RUN_STATE } from '../train/liveRunState';
import type { RunRecord, StoredEvent, StoredMetrics } from './runRecord';

const STATUS: Record<RunRecord['status'], RunStatus> = {
  running: 'stopped',
  // the runs table's word: continuable from its last stored checkpoint
  interrupted: 'interrupted',
  stopped: 'stopped',
  completed: 'completed',
  failed: 'failed',
  imported: 'completed',
};

export function restoreRunState(
  record: RunRecord,
  metrics: readonly StoredMetrics[],
  events: readonly StoredEvent[],
): RunState {
  const steps: RunState['steps'] = { sft: [], teacher: [], student: [] };
  for (const m of metrics) steps[m.stage].push(m.line);
  // a run stored before the per-step flag logged the running count under its name
  steps.student = withSkippedFlag(steps.student);
  const folded = foldRunLog(
    { ...INITIAL_RUN_STATE, steps },
    events.map((e) => e.event),
  );
  return {
    ...folded,
    recordId: record.id,
    status: STATUS[record.status],
    config: record.config,
    backendChoice: record.backendChoice,
    backend: record.backend,
    // the record's position and summary are the last the worker wrote (also for a run cut off mid-stage)
    stage: record.stage,
    step: record.step,
    totalSteps: record.totalSteps,
    summary: record.summary ?? folded.summary,
    error: record.error ? { name: 'RunError', message: record.error } : folded.error,
  };
}
