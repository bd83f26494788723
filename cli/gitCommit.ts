// The commit a generated page was made at, for the pages that name their commit (npm run protocol, the paired report).
import { execFileSync } from 'node:child_process';
import { ROOT } from './presetFiles';

/** Short hash of HEAD, with "+ uncommitted changes" when tracked files differ from it. */
export function currentCommit(): string {
  try {
    const git = (args: string[]): string => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const hash = git(['rev-parse', '--short', 'HEAD']);
    return git(['status', '--porcelain', '--untracked-files=no']) === '' ? hash : `${hash} + uncommitted changes`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
