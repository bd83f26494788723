// The import graph of the lab's TypeScript sources, read with the TypeScript parser: every relative import, type-only
// imports, re-exports and dynamic imports included; packages are listed apart. For the tests that check which way
// imports go (test/app/importDirection.test.ts) and where code runs (test/app/workerFolder.test.ts).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** Every .ts/.tsx file under `dir` (declaration files left out). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The .ts/.tsx file a relative specifier names (`./x` → x.ts, x.tsx, x/index.ts), or null (an asset, `?raw`). */
export function resolveModule(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  const candidates = /\.tsx?$/.test(base) ? [base] : ['.ts', '.tsx', '/index.ts', '/index.tsx'].map((e) => base + e);
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

/** What one file imports: the files (absolute paths) and the packages (bare specifiers). */
export function importsOf(file: string): { files: string[]; packages: string[] } {
  const specs = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName);
  const files = specs
    .filter((s) => s.startsWith('.'))
    .map((s) => resolveModule(file, s))
    .filter((t): t is string => t !== null);
  return { files: [...new Set(files)], packages: [...new Set(specs.filter((s) => !s.startsWith('.')))] };
}

/** Every file reachable from `entry` through imports (the entry included). */
export function reachableFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    stack.push(...importsOf(file).files);
  }
  return seen;
}

/** The files that `new Worker(new URL('…', import.meta.url))` names in `file`: the worker entry points it starts. */
export function workersStartedBy(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/new Worker\(\s*new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url/g)]
    .map((m) => resolveModule(file, m[1] as string))
    .filter((t): t is string => t !== null);
}
