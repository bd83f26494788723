import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../src/core/experiment/config';
import {
  configFileReferenceErrors,
  fileReferenceMessage,
  fileReferenceProblem,
} from '../../../src/core/experiment/fileReference';

const NOT_A_URL = 'not a URL or a scheme';

describe('fileReferenceProblem', () => {
  it('accepts the shipped teachers and no file at all, in the tab and in the CLI', () => {
    for (const scope of ['app', 'local'] as const) {
      expect(fileReferenceProblem('teachers/shell', scope)).toBeNull();
      expect(fileReferenceProblem('teachers/shell/', scope)).toBeNull();
      expect(fileReferenceProblem('', scope)).toBeNull();
    }
  });

  it('refuses absolute URLs and every scheme in both scopes', () => {
    for (const scope of ['app', 'local'] as const) {
      for (const value of [
        'http://OTHER-HOST/teachers/shell',
        'https://x.test/t',
        'javascript:alert(1)',
        'JavaScript:alert(1)',
        'data:application/json,{}',
        'file:///etc/passwd',
        'blob:http://x/1',
        ' http://x/',
      ]) {
        expect(fileReferenceProblem(value, scope), `${scope} ${value}`).toContain(NOT_A_URL);
      }
    }
  });

  it('refuses protocol-relative URLs, backslashes included, and control characters', () => {
    for (const value of ['//OTHER-HOST/teachers', '\\\\OTHER-HOST\\teachers', '/\\OTHER-HOST/t']) {
      expect(fileReferenceProblem(value, 'local'), value).toContain('not a URL of another host');
    }
    expect(fileReferenceProblem('java\tscript:alert(1)', 'app')).toContain('not control characters');
    expect(fileReferenceProblem('teachers/\u0000shell', 'local')).toContain('not control characters');
  });

  it('accepts absolute and Windows paths in the CLI only', () => {
    expect(fileReferenceProblem('/srv/teachers/shell', 'local')).toBeNull();
    expect(fileReferenceProblem('C:\\teachers\\shell', 'local')).toBeNull();
    expect(fileReferenceProblem('../teachers/shell', 'local')).toBeNull();
    expect(fileReferenceProblem('/srv/teachers/shell', 'app')).toContain('not an absolute path');
    expect(fileReferenceProblem('C:\\teachers', 'app')).toContain(NOT_A_URL);
  });

  it('keeps a tab path inside the app: no "..", no escapes, queries or fragments', () => {
    expect(fileReferenceProblem('../teachers', 'app')).toContain('without ".." segments');
    expect(fileReferenceProblem('teachers/./shell', 'app')).toContain('without "." segments');
    for (const value of ['teachers%2Fshell', 'teachers?x=1', 'teachers#a', 'teachers\\shell', 'a b']) {
      expect(fileReferenceProblem(value, 'app'), value).toContain('letters, digits');
    }
  });

  it('names the key and quotes the value', () => {
    expect(fileReferenceMessage('teacher.checkpoint', 'http://OTHER-HOST/teachers/shell', 'app')).toBe(
      'teacher.checkpoint: expected a relative path inside the app, e.g. teachers/shell, not a URL or a scheme ' +
        '(http:): nothing is fetched from elsewhere (got "http://OTHER-HOST/teachers/shell")',
    );
    expect(fileReferenceMessage('teacher.checkpoint', 'teachers/shell', 'app')).toBeNull();
  });
});

describe('the file references of a resolved config', () => {
  it('finds a teacher checkpoint outside the app in the tab, and nothing in the default config', () => {
    expect(configFileReferenceErrors(DEFAULT_CONFIG, 'app')).toEqual([]);
    const away = { ...DEFAULT_CONFIG, teacher: { ...DEFAULT_CONFIG.teacher, checkpoint: '/srv/teachers/shell' } };
    expect(configFileReferenceErrors(away, 'app')).toEqual([
      'teacher.checkpoint: expected a relative path inside the app, e.g. teachers/shell, not an absolute path (got "/srv/teachers/shell")',
    ]);
    expect(configFileReferenceErrors(away, 'local')).toEqual([]);
  });
});
