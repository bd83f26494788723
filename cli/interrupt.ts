// Ctrl-C for the long-running CLIs (experiment, sweep): the first SIGINT asks the trainer to stop at the next step
// boundary and write a checkpoint; a later one quits at once.
//
// The CLIs run as `node --import tsx cli/<name>.ts` (package.json scripts), so SIGINT reaches this process
// directly. Under `npm run` a terminal's Ctrl-C is delivered to the whole foreground process group and npm also
// forwards it to its child, so one keypress can arrive twice within milliseconds: SIGINTs within `mergeMs` of the
// first count as the same one. (The `tsx` wrapper binary is not suitable: it relays SIGINT and SIGKILLs the script
// if its event loop does not acknowledge within ~60 ms, which a training step exceeds — no checkpoint.)

/** True when started through the `tsx` wrapper binary (it preloads its signal-relay preflight). */
function underTsxWrapper(): boolean {
  return process.execArgv.some((a) => /tsx[\\/]dist[\\/]preflight/.test(a));
}

/** A one-line warning for runs started through the `tsx` wrapper, or null. */
export function tsxWrapperWarning(command: string): string | null {
  return underTsxWrapper()
    ? `note: started through the tsx wrapper, which kills the run on Ctrl-C before it can write a checkpoint; use npm run ${command} (node --import tsx cli/${command}.ts)\n`
    : null;
}

/**
 * Call `first` on the first SIGINT; SIGINTs within `mergeMs` of it count as the same one; a later one calls
 * `again`. Returns a function that removes the handler.
 */
export function onInterrupt(first: () => void, again: () => void, mergeMs = 1500): () => void {
  let at: number | null = null;
  const handler = (): void => {
    const now = Date.now();
    if (at === null) {
      at = now;
      first();
    } else if (now - at > mergeMs) {
      again();
    }
  };
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}

/** What a stop request reaches: the trainer (Trainer.requestStop). */
export interface Stoppable {
  requestStop(): void;
}

/**
 * A Ctrl-C that may come before the trainer exists (while the backend starts or the run folder is made): it is
 * remembered and handed to the trainer as soon as one is attached, which then stops at its first step boundary
 * with a checkpoint. One latch per CLI process; a sweep attaches each run's trainer in turn.
 */
export class InterruptLatch {
  private target: Stoppable | null = null;
  requested = false;

  attach(target: Stoppable): void {
    this.target = target;
    if (this.requested) target.requestStop();
  }

  detach(): void {
    this.target = null;
  }

  fire(): void {
    this.requested = true;
    this.target?.requestStop();
  }
}
