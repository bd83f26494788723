// Trainer events on their way from the worker to the page, batched: step events wait until `intervalMs` has passed
// since the last message (so the page gets at most ~1000/intervalMs messages a second however fast steps come);
// any other event (stage, window, evaluation, retirement, checkpoint, done…) goes out at once with what waits.
import type { TrainerEvent } from '../../engine/trainer/events';

export class EventBatch {
  private pending: TrainerEvent[] = [];
  private last = -Infinity;

  constructor(
    private readonly send: (events: TrainerEvent[]) => void,
    private readonly intervalMs = 100,
    private readonly now: () => number = () => (typeof performance !== 'undefined' ? performance.now() : Date.now()),
  ) {}

  add(event: TrainerEvent): void {
    this.pending.push(event);
    if (event.type !== 'step' || this.now() - this.last >= this.intervalMs) this.flush();
  }

  /** Send what waits (before the worker blocks on a pause, and at the end). */
  flush(): void {
    if (this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    this.last = this.now();
    this.send(events);
  }
}
