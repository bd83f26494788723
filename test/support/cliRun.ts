// A command's exported main(argv, io), run in-process with its output captured (cli/cliMain.ts).
import type { CliIo } from '../../cli/cliMain';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(main: (argv: string[], io: CliIo) => Promise<number>, args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}
