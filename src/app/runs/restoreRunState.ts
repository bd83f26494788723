// A stored run back into the Train view's RunState (charts, summary, log), e.g. after a reload or to resume it.
import type { RunStatus, RunState } from '../worker/runState';
import { INITIAL_RUN_STATE, LOG_LIMIT } from '../worker/runState';
import type { RunRecord, StoredEvent, StoredMetrics } from './runRecord';

const STATUS: Record<RunRecord['status'], RunStatus> = {
  running: 'stopped',
  interrupted: 'stopped',
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
  const state: RunState = {
    ...INITIAL_RUN_STATE,
    recordId: record.id,
    status: STATUS[record.status],
    config: record.config,
    backendChoice: record.backendChoice,
    backend: record.backend,
    stage: record.stage,
    step: record.step,
    totalSteps: record.totalSteps,
    steps,
    summary: record.summary,
    error: record.error ? { name: 'RunError', message: record.error } : null,
    windows: [],
    evaluations: [],
    log: [],
  };
  for (const { event } of events) {
    switch (event.type) {
      case 'window':
        state.windows.push({ step: event.window.end_step, mean: event.window.mean });
        break;
      case 'evaluation':
        if (event.kind === 'gate') state.evaluations.push(event.evaluation);
        else state.finalEvaluation = event.result;
        break;
      case 'retirement':
        state.retirement = {
          step: event.step,
          triggerStep: event.triggerStep,
          schedule: event.schedule,
          teacherPerformance: event.teacherPerformance,
        };
        state.log.push({ level: 'info', text: `the teacher retired at step ${event.triggerStep} (${event.schedule})` });
        break;
      case 'checkpoint':
        state.log.push({ level: 'info', text: `checkpoint ${event.name} (${event.reason})` });
        break;
      case 'warning':
        state.log.push({ level: 'warning', text: event.message });
        break;
      case 'error':
        state.log.push({ level: 'error', text: `${event.stage} step ${event.step}: ${event.message}` });
        break;
      case 'stage':
        if (event.status !== 'end')
          state.log.push({
            level: 'info',
            text: `${event.stage}: ${event.status === 'skipped' ? 'skipped' : `${event.totalSteps} steps`}`,
          });
        break;
      default:
        break;
    }
  }
  if (state.log.length > LOG_LIMIT) state.log = state.log.slice(state.log.length - LOG_LIMIT);
  return state;
}
