// Every relative link in the README and the docs points at a file or folder of the repository, and every heading
// anchor it names exists there: a heading (GitHub's anchor rule: lower case, punctuation dropped, spaces to hyphens)
// or an explicit `<a id=…>`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f));
  const others = [
    'README.md',
    'public/teachers/README.md',
    'src/engine/kernels/README.md',
    'src/engine/losses/README.md',
  ]
    .map((f) => join(ROOT, f))
    .filter((f) => existsSync(f));
  return [...others, ...docs];
}

/** GitHub's heading anchor: lower-cased, everything but letters, digits, spaces, `-` and `_` dropped, spaces → `-`. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const headings = text
    .split('\n')
    .filter((l) => /^#{1,6} /.test(l))
    .map((l) => headingAnchor(l.replace(/^#+ /, '')));
  const explicit = [...text.matchAll(/<a (?:id|name)="([^"]+)"/g)].map((m) => m[1] ?? '');
  return new Set([...headings, ...explicit]);
}

/** Relative link targets `[text](target)` outside code spans and fences, with their 1-based line. */
function linksOf(file: string): { target: string; line: number }[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: { target: string; line: number }[] = [];
  let fenced = false;
  lines.forEach((raw, i) => {
    if (raw.trimStart().startsWith('```')) fenced = !fenced;
    if (fenced || /^ {4}/.test(raw)) return;
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // absolute URL: not checked offline
      out.push({ target, line: i + 1 });
    }
  });
  return out;
}

describe('markdown links', () => {
  it('computes GitHub heading anchors the way GitHub does', () => {
    expect(headingAnchor('Set-up (fresh machine, Node ≥ 20)')).toBe('set-up-fresh-machine-node--20');
    expect(headingAnchor('§2 The retirement gate')).toBe('2-the-retirement-gate');
  });

  it('finds links to check in the README', () => {
    expect(linksOf(join(ROOT, 'README.md')).length).toBeGreaterThan(5);
  });

  it('every relative link in the README and docs/ names an existing file and heading', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      for (const { target, line } of linksOf(file)) {
        const [path = '', anchor] = target.split('#');
        const dest = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        const where = `${relative(ROOT, file)}:${line}: ${target}`;
        if (!existsSync(dest)) {
          broken.push(`${where} (no such file)`);
        } else if (anchor && statSync(dest).isFile() && dest.endsWith('.md') && !anchorsOf(dest).has(anchor)) {
          broken.push(`${where} (no heading with that anchor)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
