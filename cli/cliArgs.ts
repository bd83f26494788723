// Command-line flags of the CLIs (experiment, sweep, env), parsed one way: node's parseArgs, strict, and a bad flag
// (unknown, missing its value, a stray positional) refused as a user error naming it (exit 2, one line).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UserError } from '../src/core/errors';

/**
 * Parse `argv` against `options` (unknown flags refused). Positionals are refused unless `allowPositionals`.
 * Throws a UserError whose message is parseArgs' first line (at most 200 characters) and "(see --help)". A flag that
 * takes one value (not `multiple`) given twice is refused naming the flag and both values, where parseArgs alone
 * would keep the last silently (`--seed 1 --seed 2` would run seed 2).
 */
export function parseFlags<const O extends NonNullable<ParseArgsConfig['options']>, const P extends boolean = false>(
  argv: string[],
  options: O,
  allowPositionals?: P,
) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options,
      strict: true,
      allowPositionals: (allowPositionals ?? false) as P,
      tokens: true,
    });
  } catch (e) {
    throw new UserError(`${(e as Error).message.split('\n')[0]!.slice(0, 200)} (see --help)`);
  }
  const given = new Map<string, string[]>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || options[token.name]?.multiple === true) continue;
    const values = given.get(token.name) ?? [];
    values.push(token.value === undefined ? token.rawName : JSON.stringify(token.value.slice(0, 40)));
    given.set(token.name, values);
    if (values.length > 1)
      throw new UserError(`--${token.name} is given ${values.length} times (${values.join(', ')}): give it once`);
  }
  const { tokens: _tokens, ...result } = parsed;
  return result;
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
