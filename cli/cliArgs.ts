// Command-line flags of the CLIs (experiment, sweep, env), parsed one way: node's parseArgs, strict, and a bad flag
// (unknown, missing its value, a stray positional) refused as a user error naming it (exit 2, one line).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UserError } from '../src/core/errors';

/**
 * Parse `argv` against `options` (unknown flags refused). Positionals are refused unless `allowPositionals`.
 * Throws a UserError whose message is parseArgs' first line (at most 200 characters) and "(see --help)".
 */
export function parseFlags<const O extends NonNullable<ParseArgsConfig['options']>, const P extends boolean = false>(
  argv: string[],
  options: O,
  allowPositionals?: P,
) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: (allowPositionals ?? false) as P });
  } catch (e) {
    throw new UserError(`${(e as Error).message.split('\n')[0]!.slice(0, 200)} (see --help)`);
  }
}

/**
 * Refuse a folder flag given an empty or blank value (`--out ""`): it would otherwise mean the current folder, or
 * an error naming an empty path. `flags` maps each flag name to its value as parsed.
 */
export function refuseBlankPaths(flags: Readonly<Record<string, string | undefined>>): void {
  for (const [flag, value] of Object.entries(flags)) {
    if (value !== undefined && value.trim() === '')
      throw new UserError(`--${flag}: expected a folder path, got ${value === '' ? 'an empty string' : 'only blanks'}`);
  }
}
