// The shared entry point of the long-running CLIs (experiment, sweep): exit codes and how errors reach the user.
// 0 done; 1 a run failed (reported by main itself); 2 a user error (bad preset, key, value, run folder, checkpoint
// that does not match) as one message without a stack trace; 1 with the stack for anything else (a defect).
import { ConfigError } from '../src/core/experiment/config';
import { UserError } from './experimentRunner';
import { tsxWrapperWarning } from './interrupt';
import { RunFolderError } from './runFolder';

/** Core and engine throw plain Errors for a checkpoint or preset the user pointed at; these prefixes mark them. */
const USER_MESSAGE = /^(checkpoint|--set|preset|config)/;

/** The message to show for a user error, or null when `e` is a defect. */
export function userErrorMessage(e: unknown): string | null {
  if (e instanceof ConfigError) return e.messages.join('\n  ');
  if (e instanceof UserError || e instanceof RunFolderError) return e.message;
  if (e instanceof Error && USER_MESSAGE.test(e.message)) return e.message;
  return null;
}

/** Runs `main(argv)` and exits with its code; user errors exit 2 with `command: message`. */
export function runCliMain(command: string, main: (argv: string[]) => Promise<number>): void {
  const warning = tsxWrapperWarning(command);
  if (warning) process.stderr.write(warning);
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      const message = userErrorMessage(e);
      if (message !== null) {
        process.stderr.write(`${command}: ${message}\n`);
        process.exit(2);
      }
      process.stderr.write(`${command}: internal error: ${(e as Error).stack ?? String(e)}\n`);
      process.exit(1);
    },
  );
}
