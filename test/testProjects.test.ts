// The test projects of vitest.config.ts stay what their names say: a unit test file (any `*.test.ts` that is not
// `*.e2e.test.ts`) launches no browser and spawns no process, so `npm run test:unit` stays fast. Checked on what each
// file imports; training over a whole preset cannot be seen from the imports and is left to review.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const TEST = __dirname;
const files = readdirSync(TEST, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => f.split('\\').join('/'));

/** What a file may import only as an end-to-end test, and why. */
const E2E_ONLY: [RegExp, string][] = [
  [/support\/chromium'/, 'launches Chromium (test/support/chromium.ts)'],
  [/\bstartAppServer\b/, 'starts the app server (test/app/appServer.ts)'],
  [/from 'node:child_process'/, 'spawns a process (node:child_process)'],
];

describe('the test projects', () => {
  it('finds the unit and the end-to-end test files', () => {
    expect(files.filter((f) => f.endsWith('.e2e.test.ts')).length).toBeGreaterThan(0);
    expect(files.filter((f) => !f.endsWith('.e2e.test.ts')).length).toBeGreaterThan(0);
  });

  it('no unit test file launches Chromium, starts the app server or spawns a process (name it *.e2e.test.ts)', () => {
    const wrong = files
      .filter((f) => !f.endsWith('.e2e.test.ts') && f !== 'testProjects.test.ts')
      .flatMap((f) => {
        const text = readFileSync(join(TEST, f), 'utf8');
        return E2E_ONLY.filter(([pattern]) => pattern.test(text)).map(([, why]) => `test/${f} ${why}`);
      });
    expect(wrong).toEqual([]);
  });

  it('runs every unit file that replaces a module (vi.mock) in the isolated project, since the unit project shares modules', () => {
    const config = readFileSync(join(TEST, '..', 'vitest.config.ts'), 'utf8');
    const listed = /const MOCKS_MODULES = \[([^\]]*)\]/.exec(config)?.[1] ?? '';
    const mocking = files.filter(
      (f) => !f.endsWith('.e2e.test.ts') && /\bvi\.(do)?mock\(/.test(readFileSync(join(TEST, f), 'utf8')),
    );
    expect(mocking.length).toBeGreaterThan(0);
    expect(mocking.filter((f) => !listed.includes(`'test/${f}'`))).toEqual([]);
  });
});
