// One chart redraw per task, and charts kept to a small share of the main thread. A recharts redraw (its own store,
// selectors, SVG commit) costs ~5–15 ms on a slow machine, more while training workers hold its cores; six charts that
// learn of new data in one task would redraw in one task, a 50–90 ms freeze of the page. A chart that reads its data
// through useQueuedValue joins a FIFO and gets its new value in a task of its own, so the page answers input between
// any two redraws. Only the latest value a chart was given is drawn.
//
// While a training worker of this page runs, redraws also keep to a share of the main thread (REDRAW_SHARE), by their
// own measured time, however slow the machine: a budget refills at that share of wall time, up to BURST_MS, and each
// redraw spends what it took; when the budget is spent the queue rests until it is back to zero. So a burst after a
// quiet spell draws at once, one chart per task, while a long run's steady trickle of redraws is paced. On a 2-core
// machine training two runs at once the page shares those cores with both workers: every millisecond spent drawing is
// taken from training. A fast machine barely notices (a 4 ms redraw is paid back in 80 ms, well under the charts'
// one-second refresh); a slow one redraws each chart every few seconds instead of every second. A user's own action (a
// click, a key, a slider moved) refills the budget and ends a rest, so what they asked for is drawn at once. With
// nothing training (a playback, a stored run, the replay view) there is nothing to leave the cores to, and redraws
// follow one another without rests. While the page is hidden nothing is drawn; the latest values are drawn when it is
// shown again.
import { useEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';

/** The share of the main thread the queued redraws may take, by their own measured time. */
export const REDRAW_SHARE = 0.05;
/** Redraw time that may be spent at once before the pacing starts (ms): a burst after a quiet spell has no rests. */
export const BURST_MS = 250;
/** The longest rest after one redraw (ms), so that one slow redraw does not hold every chart for seconds. */
export const MAX_PAUSE_MS = 1500;

/** How long to rest so that a budget of `credit` ms (negative: overspent) refills to zero at `share` (ms). */
export function restFor(credit: number, share = REDRAW_SHARE): number {
  if (!(credit < 0)) return 0;
  return Math.min(MAX_PAUSE_MS, -credit / share);
}

/** What the queue needs from its surroundings: a clock, a timer, the page's visibility and the user's actions. */
export interface RedrawHost {
  now(): number;
  /** run `run` after `ms`; the function returned cancels it */
  setTimeout(run: () => void, ms: number): () => void;
  hidden(): boolean;
  /** call `run` once when the page is shown again */
  onShown(run: () => void): void;
  /** call `run` on each action of the user's (pointer down, key down, an input's value changed) */
  onInput(run: () => void): void;
}

/**
 * A FIFO of redraws run one per task; while something trains, paced so that they take at most `share` of the time
 * beyond a burst.
 */
export class RedrawQueue {
  private readonly queue: (() => void)[] = [];
  private pumping = false;
  /** training workers running now (trainingStarted) */
  private training = 0;
  /** redraw time that may still be spent now (ms): refilled at `share` of wall time up to `burst` */
  private credit: number;
  private refilledAt: number;
  /** cancels the pump waiting for its turn, if one waits on a timer */
  private cancelWait: (() => void) | null = null;

  constructor(
    private readonly host: RedrawHost,
    private readonly share = REDRAW_SHARE,
    private readonly burst = BURST_MS,
  ) {
    this.credit = burst;
    this.refilledAt = host.now();
    host.onInput(() => this.goOnNow());
  }

  get length(): number {
    return this.queue.length;
  }

  /** A training worker started: redraws are paced until every one started has ended (the function returned). */
  trainingStarted(): () => void {
    this.training++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.training--;
      if (this.training === 0) this.goOnNow();
    };
  }

  enqueue(redraw: () => void): void {
    this.queue.push(redraw);
    if (this.pumping) return;
    this.pumping = true;
    this.wait(0);
  }

  private wait(ms: number): void {
    this.cancelWait = this.host.setTimeout(() => {
      this.cancelWait = null;
      this.pump();
    }, ms);
  }

  /** The user acted, or the last training ended: the full budget again, and a resting queue goes on now. */
  private goOnNow(): void {
    this.credit = this.burst;
    this.refilledAt = this.host.now();
    if (this.cancelWait) {
      this.cancelWait();
      this.wait(0);
    }
  }

  private pump(): void {
    if (this.host.hidden()) {
      this.host.onShown(() => this.pump());
      return;
    }
    const next = this.queue.shift();
    const t0 = this.host.now();
    this.credit = Math.min(this.burst, this.credit + (t0 - this.refilledAt) * this.share);
    try {
      next?.();
    } finally {
      const t1 = this.host.now();
      this.credit = this.training > 0 ? this.credit - (t1 - t0) : this.burst;
      this.refilledAt = t1;
      if (this.queue.length > 0) this.wait(restFor(this.credit, this.share));
      else this.pumping = false;
    }
  }
}

const browserHost: RedrawHost = {
  now: () => performance.now(),
  setTimeout: (run, ms) => {
    const t = setTimeout(run, ms);
    return () => clearTimeout(t);
  },
  hidden: () => typeof document !== 'undefined' && document.visibilityState === 'hidden',
  onShown: (run) => {
    const shown = () => {
      if (document.visibilityState === 'hidden') return;
      document.removeEventListener('visibilitychange', shown);
      run();
    };
    document.addEventListener('visibilitychange', shown);
  },
  onInput: (run) => {
    if (typeof document === 'undefined') return;
    for (const type of ['pointerdown', 'keydown', 'input', 'change'])
      document.addEventListener(type, run, { capture: true, passive: true });
  },
};

const redraws = new RedrawQueue(browserHost);

/** Tell the charts a training worker started; call the function returned when it ends (once is enough). */
export function chartsPacedForTraining(): () => void {
  return redraws.trainingStarted();
}

/** `value`, handed to the component in its own task when it changes (the first value at once). */
export function useQueuedValue<T>(value: T): T {
  const [shown, setShown] = useState(value);
  const latest = useRef(value);
  const queued = useRef(false);
  useEffect(() => {
    latest.current = value;
    if (queued.current) return;
    queued.current = true;
    redraws.enqueue(() => {
      queued.current = false;
      // render, commit and the chart's own follow-up renders (recharts' store) now, inside this task: left to React's
      // scheduler, the redraws of several charts could land in one later task together
      flushSync(() => setShown(() => latest.current));
    });
  }, [value]);
  return shown;
}
