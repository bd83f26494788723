// Ctrl-C and SIGTERM for the long-running CLIs (experiment, sweep): the first SIGINT or SIGTERM (a `kill`, a
// container or job scheduler stopping the process) asks the trainer to stop at the next step boundary and write a
// checkpoint; a later one quits at once. The exit code says which signal stopped the run: 130 (128 + SIGINT's 2) or
// 143 (128 + SIGTERM's 15), as a shell reports a process those signals ended.
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

/** The signals that stop a run with a checkpoint. */
export type StopSignalName = 'SIGINT' | 'SIGTERM';

/** The exit code of a run a signal stopped (with its checkpoint written). */
export const SIGNAL_EXIT_CODE: Record<StopSignalName, number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Call `first` on the first SIGINT or SIGTERM; signals within `mergeMs` of it count as the same one; a later one
 * calls `again`. Each is told which signal came. Returns a function that removes the handlers.
 */
export function onInterrupt(
  first: (signal: StopSignalName) => void,
  again: (signal: StopSignalName) => void,
  mergeMs = 1500,
): () => void {
  let at: number | null = null;
  const handler = (signal: StopSignalName): void => {
    const now = Date.now();
    if (at === null) {
      at = now;
      first(signal);
    } else if (now - at > mergeMs) {
      again(signal);
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** What a stop request reaches: the trainer (Trainer.requestStop). */
export interface Stoppable {
  requestStop(): void;
}

/**
 * A Ctrl-C or SIGTERM that may come before the trainer exists (while the backend starts or the run folder is made): it is
 * remembered and handed to the trainer as soon as one is attached, which then stops at its first step boundary
 * with a checkpoint. One latch per CLI process; a sweep attaches each run's trainer in turn.
 */
export class InterruptLatch {
  private target: Stoppable | null = null;
  requested = false;
  /** The signal that asked for the stop (SIGINT when fired without one). */
  signal: StopSignalName = 'SIGINT';

  attach(target: Stoppable): void {
    this.target = target;
    if (this.requested) target.requestStop();
  }

  detach(): void {
    this.target = null;
  }

  fire(signal: StopSignalName = 'SIGINT'): void {
    if (!this.requested) this.signal = signal;
    this.requested = true;
    this.target?.requestStop();
  }
}
