import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/core/experiment/config';
import { offOriginConfigErrors, offOriginPathError } from '../../src/app/sameOriginPath';

describe('config paths the tab fetches stay inside its origin', () => {
  it('accepts a path inside the app, with or without a leading slash, and the empty value', () => {
    expect(offOriginPathError('teacher.checkpoint', 'teachers/shell')).toBeNull();
    expect(offOriginPathError('teacher.checkpoint', '/teachers/shell/')).toBeNull();
    expect(offOriginPathError('teacher.checkpoint', '')).toBeNull();
  });

  it.each([
    ['http://127.0.0.2:8080/teachers/shell', 'a URL with a scheme ("http:")'],
    ['HTTPS://other.test/t', 'a URL with a scheme ("HTTPS:")'],
    ['javascript:alert(1)', 'a URL with a scheme ("javascript:")'],
    ['data:application/json,{}', 'a URL with a scheme ("data:")'],
    ['//other.test/teachers', 'a URL of another host ("//…")'],
    ['\\\\other.test\\teachers', 'a backslash'],
  ])('refuses %s, naming the key and what it is', (value, what) => {
    expect(offOriginPathError('teacher.checkpoint', value)).toBe(
      `teacher.checkpoint: expected a path inside this app (e.g. teachers/shell), got ${what}: nothing is fetched from elsewhere`,
    );
  });

  it('finds the off-origin teacher checkpoint in a resolved config, and nothing in the default one', () => {
    expect(offOriginConfigErrors(DEFAULT_CONFIG)).toEqual([]);
    const config = { ...DEFAULT_CONFIG, teacher: { ...DEFAULT_CONFIG.teacher, checkpoint: 'http://x.test/t' } };
    expect(offOriginConfigErrors(config)).toEqual([expect.stringMatching(/^teacher\.checkpoint: expected a path/)]);
  });
});
