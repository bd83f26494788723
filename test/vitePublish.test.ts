// The build id the published lab shows beside its version (vite.publish.ts), from a stand-in git.
import { describe, expect, it } from 'vitest';
import { buildId, type GitRunner } from '../vite.publish';

/** A git that answers `rev-parse` with `commit` and `status` with `status`, recording what it was asked. */
function fakeGit(commit: string, status: string, asked: string[][] = []): GitRunner {
  return (args) => {
    asked.push(args);
    if (args[0] === 'rev-parse') return commit;
    if (args[0] === 'status') return status;
    throw new Error(`unexpected git ${args.join(' ')}`);
  };
}

describe('buildId', () => {
  it('is the short commit of a clean checkout', () => {
    const asked: string[][] = [];
    expect(buildId(fakeGit('1a2b3c4', '', asked))).toBe('1a2b3c4');
    expect(asked).toEqual([
      ['rev-parse', '--short=7', 'HEAD'],
      ['status', '--porcelain', '--untracked-files=no'],
    ]);
  });

  it('marks a build from changed tracked files with "+"', () => {
    expect(buildId(fakeGit('1a2b3c4', ' M src/app/App.tsx'))).toBe('1a2b3c4+');
  });

  it('is the build time (UTC, to the minute) where git fails', () => {
    const noGit: GitRunner = () => {
      throw new Error('fatal: not a git repository');
    };
    expect(buildId(noGit, new Date(Date.UTC(2026, 11, 2, 16, 30, 59)))).toBe('20261202T1630');
  });
});
