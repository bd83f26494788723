// The shared entry point of the CLIs (experiment, sweep, env): exit codes and how errors reach the user.
// 0 done; 1 a run failed (reported by main itself) or a defect; 2 a user error; 130 interrupted (143: by SIGTERM).
// Errors are told apart by class (core/errors.ts), never by their wording: a UserError (config, preset, log,
// checkpoint, run folder, backend, file system, usage) prints as ONE line `command: message` and exits 2; anything
// else is a defect in RetireLab and prints a line saying so, then the stack, and exits 1.
import { pathToFileURL } from 'node:url';
import { userErrorLine } from '../src/core/errors';
import { tsxWrapperWarning } from './interrupt';

/** Where a CLI writes: the process's streams, or a test's buffers (in-process runs). */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processIo: CliIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
};

/** Report `e` the CLI way and return the exit code: 2 for a user error, 1 (with the stack) for a defect. */
function reportError(command: string, e: unknown, io: CliIo): number {
  // a user error (core/errors.ts's classes) is one line; anything else is a defect
  const message = userErrorLine(e);
  if (message !== null) {
    io.stderr(`${command}: ${message}\n`);
    return 2;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  io.stderr(
    `${command}: internal error (a defect in RetireLab, not in your input — please report it with this output): ${err.message}\n${err.stack ?? ''}\n`,
  );
  return 1;
}

/** Run `main` in-process and return its exit code, user errors and defects reported to `io`. */
export async function runCommand(
  command: string,
  main: (argv: string[], io: CliIo) => Promise<number>,
  argv: string[],
  io: CliIo,
): Promise<number> {
  try {
    return await main(argv, io);
  } catch (e) {
    return reportError(command, e, io);
  }
}

/** True when `moduleUrl` (import.meta.url) is the script node was started with. */
export function isEntryPoint(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(script).href === moduleUrl;
}

/** The script entry: runs `main(argv)` with the process's streams and exits with its code. */
export function runCliMain(command: string, main: (argv: string[], io: CliIo) => Promise<number>): void {
  const warning = tsxWrapperWarning(command);
  if (warning) process.stderr.write(warning);
  void runCommand(command, main, process.argv.slice(2), processIo).then((code) => process.exit(code));
}
