// Inside the training worker: writes a run's trainer events to the run repository as they come, in batches
// (metrics lines and events appended together at most every `flushMs`, and at once on stage changes,
// checkpoints, the retirement and the end), and keeps the run's record (status, stage, step, trigger step, latest
// checkpoint, summary) up to date; a run is stored 'completed' only once its step lines are checked whole. Storage failures (a full disk) go to `onError`, never silently; the pending
// rows are kept and retried with the next batch.
import type { RunSummary } from '../../core/experiment/summary';
import type { BackendName } from '../../engine/backend';
import { foldPosition } from '../../core/runLog/runLogFold';
import type { TrainerEvent } from '../../engine/trainer/events';
import { isTrainedStage, type RunRecord, type StoredEvent, type StoredMetrics } from '../runs/runRecord';
import { stepLinesFault, type RunRepository } from '../runs/runRepository';

export interface RecorderOptions {
  /** longest wait (ms) between two writes while steps arrive */
  flushMs?: number;
  /** ms clock (default Date.now) */
  now?: () => number;
  onError?: (error: unknown) => void;
}

export class RunRecorder {
  private pendingMetrics: StoredMetrics[] = [];
  /** set once the rider's run left its leader (detach): nothing more is written */
  private detached = false;
  private pendingEvents: StoredEvent[] = [];
  private lastFlush: number;
  private writing: Promise<void> = Promise.resolve();
  private readonly flushMs: number;
  private readonly now: () => number;

  private constructor(
    private readonly repo: RunRepository,
    private rec: RunRecord,
    private seq: number,
    private readonly options: RecorderOptions,
  ) {
    this.flushMs = options.flushMs ?? 500;
    this.now = options.now ?? Date.now;
    this.lastFlush = this.now();
  }

  /** A recorder for an existing record (created by the page); continues its event numbering on a resume. */
  static async open(repo: RunRepository, runId: string, options: RecorderOptions = {}): Promise<RunRecorder> {
    const record = await repo.getRun(runId);
    if (!record) throw new Error(`run ${runId} is not in this browser's storage (was it deleted?)`);
    const events = await repo.events(runId);
    const seq = events.reduce((m, e) => Math.max(m, e.seq + 1), 0);
    return new RunRecorder(repo, { ...record, status: 'running', error: null }, seq, options);
  }

  get current(): RunRecord {
    return this.rec;
  }

  setBackend(backend: BackendName): void {
    this.rec = {
      ...this.rec,
      backend,
      config: { ...this.rec.config, runtime: { ...this.rec.config.runtime, backend } },
    };
    this.requestFlush();
  }

  /** Record one trainer event (synchronous; the write happens in the background). */
  record(event: TrainerEvent): void {
    if (this.detached) return;
    if (event.type === 'done') {
      this.finish(event.summary);
      return;
    }
    // the record's stage, step, trigger step and checkpoint: the run log's own fold of the event
    const before = this.rec;
    this.rec = foldPosition(before, event);
    if (event.type === 'step') {
      if (isTrainedStage(event.stage))
        this.pendingMetrics.push({ runId: before.id, stage: event.stage, step: event.step, line: event.metrics });
    } else {
      // a checkpoint taken after step s of a stage belongs to (stage, s); other events to where the run is
      const stage = event.type === 'checkpoint' ? event.stage : (this.rec.stage ?? 'demonstrations');
      const step = event.type === 'checkpoint' ? event.step : this.rec.step;
      this.pendingEvents.push({ runId: before.id, seq: this.seq++, stage, step, event });
    }
    const urgent = event.type !== 'step';
    if (urgent || this.pendingMetrics.length >= 200 || this.now() - this.lastFlush >= this.flushMs) this.requestFlush();
  }

  private finish(summary: RunSummary): void {
    const status =
      summary.status === 'completed' ? 'completed' : summary.status === 'interrupted' ? 'stopped' : 'failed';
    this.rec = {
      ...this.rec,
      status,
      summary,
      error: summary.error,
      triggerStep: summary.gate.triggerStep,
    };
    this.requestFlush();
  }

  /**
   * A rider left its leader after student step `step` (workerRiders.ts): it waits, resumable, at checkpoint
   * `checkpoint` — the state after that step — to continue alone.
   */
  detach(checkpoint: string, step: number): Promise<void> {
    this.rec = { ...this.rec, status: 'interrupted', checkpoint, step, detachedAt: step };
    const stored = this.flush();
    // the run is no longer this recorder's: another lane of the page may continue it as soon as it is stored, so a
    // later flush (the leader's end) must not write this record over the one the continuation keeps
    this.detached = true;
    return stored;
  }

  /** A rider whose leader was stopped by hand: it wrote its own interrupt checkpoint there (resumable). */
  stop(): Promise<void> {
    this.rec = { ...this.rec, status: 'stopped' };
    return this.flush();
  }

  /**
   * Browser storage filled up (runRepository.ts's isStorageFull): the run stops where it is, 'interrupted' — so the
   * runs table offers Continue from its last stored checkpoint once room is made — with `message` saying what to do.
   */
  interruptForStorage(message: string): Promise<void> {
    this.rec = { ...this.rec, status: 'interrupted', error: message };
    return this.flush();
  }

  /** The run ended without a summary (the backend did not start, the trainer threw). */
  fail(message: string): Promise<void> {
    this.rec = { ...this.rec, status: 'failed', error: message };
    return this.flush();
  }

  private requestFlush(): void {
    void this.flush();
  }

  /** Write what is pending (serialised: one write at a time, in order). Resolves once it is stored or reported. */
  flush(): Promise<void> {
    if (this.detached) return this.writing;
    this.lastFlush = this.now();
    this.writing = this.writing.then(async () => {
      const metrics = this.pendingMetrics;
      const events = this.pendingEvents;
      this.pendingMetrics = [];
      this.pendingEvents = [];
      try {
        await this.repo.append(metrics, events);
        if (this.rec.status === 'completed') {
          // called completed only with whole step lines (core/runLog/stepLines.ts): else it needs a resume, which
          // starts from the newest checkpoint before the first missing line and trains the rest again
          const fault = await stepLinesFault(this.repo, this.rec.id);
          if (fault !== null)
            this.rec = {
              ...this.rec,
              status: 'interrupted',
              error: `its step lines are not whole (${fault}): continue it to train them again from its last checkpoint before that step`,
            };
        }
        await this.repo.putRun({ ...this.rec, updatedAt: this.now() });
      } catch (e) {
        // keep the rows for the next batch (unless the next batch has them already)
        this.pendingMetrics = [...metrics, ...this.pendingMetrics];
        this.pendingEvents = [...events, ...this.pendingEvents];
        this.options.onError?.(e);
      }
    });
    return this.writing;
  }
}
