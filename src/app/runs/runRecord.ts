// What the tab keeps of one run (IndexedDB, see runRepository.ts): the run's identity and outcome as one record,
// its per-step metrics lines (one row per stage and step) and its other trainer events (windows, evaluations,
// retirement, checkpoints, warnings), each tagged with the stage and step it happened at so that a resume can drop
// what came after its checkpoint.
import type { ExperimentConfig } from '../../core/experiment/config';
import type { TrainedStage } from '../../core/runLog/runLogFold';
import type { RunSummary } from '../../core/experiment/summary';
import type { BackendName } from '../../engine/backend';
import type { MetricsLine, StageName, TrainerEvent } from '../../engine/trainer/events';
import type { BackendChoice } from '../worker/protocol';

export { isTrainedStage, TRAINED_STAGES, type TrainedStage } from '../../core/runLog/runLogFold';

/**
 * 'running': a worker is (or was, before a reload) training it; on page load a 'running' record with no worker is
 * shown as 'interrupted' and can be resumed from its last checkpoint.
 */
export type RunRecordStatus = 'running' | 'completed' | 'stopped' | 'failed' | 'interrupted' | 'imported';

export interface RunRecord {
  /** stable id (also the IndexedDB key) */
  id: string;
  /** ms since the epoch */
  createdAt: number;
  updatedAt: number;
  /** where it came from: trained in this tab, or imported from a CLI run folder */
  origin: 'tab' | 'import';
  /** the preset the form started from (imports: the config's name) */
  preset: string;
  /** the form's key=value overrides, as typed */
  overrides: string[];
  seed: number;
  backendChoice: BackendChoice;
  /** the backend that really ran, once known */
  backend: BackendName | null;
  config: ExperimentConfig;
  status: RunRecordStatus;
  stage: StageName | null;
  step: number;
  totalSteps: number;
  /** the sweep point this run belongs to (queued runs and imported sweep runs), for the comparison table */
  point: Record<string, unknown> | null;
  /** the queue that started it, if any, and its place there (the comparison table keeps the sweep's order) */
  queueId: string | null;
  queueIndex: number | null;
  /** "student.schedule=never seed=2" for queued runs, else null */
  label: string | null;
  triggerStep: number | null;
  /** name of the latest complete checkpoint in the checkpoint store, or null */
  checkpoint: string | null;
  summary: RunSummary | null;
  error: string | null;
  /**
   * the student step after which this run left the leader it rode with (src/app/worker/workerRiders.ts): resumed
   * from the checkpoint of that step, it continues its student stage unannounced, as the run made alone; absent
   * for a run that never rode
   */
  detachedAt?: number | null;
}

/** One metrics line of one stage. */
export interface StoredMetrics {
  runId: string;
  stage: TrainedStage;
  step: number;
  line: MetricsLine;
}

/** Any trainer event other than 'step' and 'done' (those live in the metrics rows and the summary). */
export interface StoredEvent {
  runId: string;
  /** order of arrival within the run */
  seq: number;
  stage: StageName;
  step: number;
  event: TrainerEvent;
}

/** A fresh id: time-ordered and unique enough for one browser profile. */
export function newRunId(now: number = Date.now()): string {
  return `${now.toString(36)}-${Math.floor(Math.random() * 36 ** 6)
    .toString(36)
    .padStart(6, '0')}`;
}
