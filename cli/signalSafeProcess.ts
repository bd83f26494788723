// Ctrl-C under `tsx`: the tsx wrapper process relays SIGINT to the script and, if the script's event loop does not
// acknowledge it within ~60 ms (a training step keeps it busy longer), SIGKILLs it — no checkpoint. So a CLI that
// must survive Ctrl-C re-runs itself once as a plain `node --import tsx` child: this middle process stays idle (it
// acknowledges tsx at once), forwards SIGINT/SIGTERM to the child, and exits with the child's code. The child
// treats the terminal's SIGINT and the forwarded one as a single interrupt (see onInterrupt).
import { spawn } from 'node:child_process';

const MARK = 'RETIRELAB_SIGNAL_SAFE';

/** True when this process was started by the tsx wrapper (tsx preloads its signal-relay preflight). */
function underTsxWrapper(): boolean {
  return process.execArgv.some((a) => /tsx[\\/]dist[\\/]preflight/.test(a)) && process.env[MARK] !== '1';
}

/**
 * If running under the tsx wrapper, run `script` again as a direct child and resolve with its exit code;
 * otherwise resolve null (the caller does the work itself).
 */
export function reexecIfWrapped(script: string): Promise<number> | null {
  if (!underTsxWrapper()) return null;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, [MARK]: '1' },
    });
    const forward = (sig: NodeJS.Signals) => (): void => {
      child.kill(sig);
    };
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(code ?? (signal === 'SIGKILL' ? 137 : 130));
    });
  });
}

/**
 * Call `first` on the first SIGINT; SIGINTs within `mergeMs` of it count as the same one (the terminal and the
 * wrapper both deliver it); a later one calls `again`. Returns a function that removes the handler.
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
