// A queue's lanes (runQueue.ts): each lane is a runs store with its own training worker and trains one run at a
// time. A free lane starts the next item in queue order; once every item has started, it continues a rider that
// has left its leader (the hand-off), so a rider need not wait for its leader's last steps and evaluation in the
// leader's lane while another lane sits idle. `npm run sweep`'s lanes (cli/sweepLanes.ts) take the same order.
import type { RunSummary } from '../../core/experiment/summary';
import type { SweepRun } from '../../core/experiment/sweep';

/** A rider that left its leader, ready to be continued alone by whichever lane is free first. */
export interface HandOff<L> {
  /** continue the rider's stored run in `lane` to its end */
  run(lane: L): Promise<RunSummary>;
  /** no lane will continue it (the queue stopped or failed): leave it resumable */
  cancel(): Promise<void>;
}

/**
 * The riders handed off between lanes. A leader with riders `expect`s them when it starts; each then arrives here
 * (`offer`) when it leaves, or is `settled` when its leader's lane continues it itself after the leader ended.
 * Lanes with nothing to start wait on `changed` while riders are still expected.
 */
export class HandOffs<L> {
  private readonly ready: HandOff<L>[] = [];
  private riding = 0;
  private wake: (() => void) | null = null;
  private waiting: Promise<void> | null = null;

  /** `count` riders set off along a leader's student stage */
  expect(count: number): void {
    this.riding += count;
  }

  /** a rider left its leader: a free lane continues it */
  offer(handOff: HandOff<L>): void {
    this.ready.push(handOff);
    this.settled(1);
  }

  /** `count` riders will not be handed off (their leader's lane continues them, or they ended with it) */
  settled(count: number): void {
    this.riding = Math.max(0, this.riding - count);
    this.wake?.();
  }

  take(): HandOff<L> | undefined {
    return this.ready.shift();
  }

  /** whether a leader may still hand a rider off */
  get expecting(): boolean {
    return this.riding > 0;
  }

  /** resolves at the next offer or settle */
  changed(): Promise<void> {
    this.waiting ??= new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = null;
        this.waiting = null;
        resolve();
      };
    });
    return this.waiting;
  }

  /** the riders no lane continued */
  left(): HandOff<L>[] {
    return this.ready.splice(0);
  }
}

/**
 * Every item once, in queue order, each lane taking the next item as soon as its run ends, and — once every item has
 * started — the riders handed off. After a `stop` summary no lane takes another, and the riders not continued are
 * cancelled (left resumable). The first failure ends the queue once the other lanes' runs are over.
 */
export async function inLanes<L>(
  items: readonly SweepRun[],
  lanes: readonly L[],
  exec: (run: SweepRun, lane: L) => Promise<RunSummary>,
  stop: (s: RunSummary) => boolean,
  /** an item another lane's run took along (it rides there): no lane takes it */
  taken: (run: SweepRun) => boolean = () => false,
  handOffs: HandOffs<L> = new HandOffs<L>(),
): Promise<void> {
  let next = 0;
  let stopped = false;
  const go = async (work: () => Promise<RunSummary>) => {
    try {
      if (stop(await work())) stopped = true;
    } catch (e) {
      stopped = true;
      throw e;
    } finally {
      // a lane waiting for a hand-off looks again (the queue may have stopped)
      handOffs.settled(0);
    }
  };
  const results = await Promise.allSettled(
    lanes.map(async (lane) => {
      while (!stopped) {
        if (next < items.length) {
          const item = items[next++]!;
          if (!taken(item)) await go(() => exec(item, lane));
          continue;
        }
        const handOff = handOffs.take();
        if (handOff) await go(() => handOff.run(lane));
        else if (handOffs.expecting) await handOffs.changed();
        else break;
      }
    }),
  );
  for (const handOff of handOffs.left()) await handOff.cancel();
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
