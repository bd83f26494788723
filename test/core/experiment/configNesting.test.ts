// The config's nesting cap (checkConfigNesting in src/core/experiment/config.ts): a config file, a --set value or a
// tab's imported config nested thousands of levels deep is refused with one ConfigError naming the field path and
// the limit, where the recursive merge used to throw "Maximum call stack size exceeded" without naming anything.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors';
import {
  applyOverrides,
  checkConfigNesting,
  DEFAULT_CONFIG,
  MAX_CONFIG_DEPTH,
  resolveConfig,
  validateConfig,
} from '../../../src/core/experiment/config';

/** {"a": {"a": … 1 …}} nested `depth` objects deep. */
const deepObject = (depth: number): unknown => JSON.parse('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

describe('config nesting', () => {
  it('refuses a 5,000-deep config file with the field path and the limit, not a stack overflow', () => {
    const deepArray = JSON.parse('['.repeat(5000) + ']'.repeat(5000)) as unknown;
    const attempt = (): unknown =>
      resolveConfig({ evaluation: { temperatures: deepArray } }, DEFAULT_CONFIG, 'run/config.json');
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(
      `run/config.json: evaluation.temperatures.0.0.0.0.…: nested deeper than ${MAX_CONFIG_DEPTH} levels (a config value nests at most ${MAX_CONFIG_DEPTH} objects or arrays deep)`,
    );
  });

  it('refuses 5,000-deep --set values (an object set twice, an array) naming the key', () => {
    const json = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    expect(() => applyOverrides(DEFAULT_CONFIG, [`student=${json}`, `student=${json}`])).toThrow(
      '--set: student.a.a.a.a.a.…: nested',
    );
    const arrays = '['.repeat(5000) + ']'.repeat(5000);
    expect(() => applyOverrides(DEFAULT_CONFIG, [`evaluation.temperatures=${arrays}`])).toThrow(
      '--set: evaluation.temperatures.0.0.0.0.…: nested',
    );
  });

  it('refuses a deep full config too (a saved config, a checkpoint state)', () => {
    expect(() => validateConfig({ ...DEFAULT_CONFIG, model: deepObject(40) }, 'state.json')).toThrow(
      'state.json: model.a.a.a.a.a.…: nested deeper than',
    );
  });

  it('accepts every shipped depth: the limit is far beyond the schema and exactly at the limit is fine', () => {
    expect(() => checkConfigNesting(DEFAULT_CONFIG, 'config')).not.toThrow();
    expect(() => checkConfigNesting(deepObject(MAX_CONFIG_DEPTH), 'config')).not.toThrow();
    expect(() => checkConfigNesting(deepObject(MAX_CONFIG_DEPTH + 1), 'config')).toThrow(ConfigError);
  });
});
