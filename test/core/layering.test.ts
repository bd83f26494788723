// src/core is pure TypeScript that runs in the browser, in workers and in Node alike: no tfjs, no React/UI, no DOM,
// no Node built-ins, and no imports from engine, app or cli. This scans the sources with the TypeScript parser
// (imports, re-exports, dynamic imports, require) and complements the eslint rule.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const coreDir = join(root, 'src', 'core');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|cts|js|jsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const forbiddenPackages = [/^@tensorflow\//, /^react(-dom)?(\/|$)/, /^recharts(\/|$)/, /^zustand(\/|$)/, /^webgpu$/];
const builtins = new Set(builtinModules);
const forbiddenGlobals = new Set(['window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'indexedDB']);

/** Every violation in one file's text, as "specifier: why". `file` is used to resolve relative imports. */
export function violations(file: string, text: string): string[] {
  const out: string[] = [];
  for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
    if (forbiddenPackages.some((re) => re.test(spec))) out.push(`${spec}: tfjs/UI library`);
    else if (spec.startsWith('node:') || builtins.has(spec.split('/')[0] ?? '')) out.push(`${spec}: Node built-in`);
    else if (spec.startsWith('.')) {
      const target = relative(root, resolve(dirname(file), spec)).split(sep);
      if (target[0] === 'cli' || (target[0] === 'src' && target[1] !== 'core')) out.push(`${spec}: outside src/core`);
    }
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  // Names the file declares itself (a local `window` of K values is not the DOM's); scoping is approximated per file.
  const declared = new Set<string>();
  const collect = (node: ts.Node): void => {
    if (
      (ts.isVariableDeclaration(node) ||
        ts.isParameter(node) ||
        ts.isBindingElement(node) ||
        ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isImportSpecifier(node)) &&
      node.name !== undefined &&
      ts.isIdentifier(node.name)
    ) {
      declared.add(node.name.text);
    }
    ts.forEachChild(node, collect);
  };
  collect(source);
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && forbiddenGlobals.has(node.text) && !declared.has(node.text)) {
      const parent = node.parent;
      const isMemberName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        ((ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent) || ts.isPropertyDeclaration(parent)) &&
          parent.name === node);
      if (!isMemberName) out.push(`${node.text}: DOM global`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The .ts/.tsx file a relative specifier names (`./x` → x.ts, x.tsx, x/index.ts, x/index.tsx), or null. */
function resolveModule(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  const candidates = /\.tsx?$/.test(base) ? [base] : ['.ts', '.tsx', '/index.ts', '/index.tsx'].map((e) => base + e);
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

/**
 * The import graph of some files: file → the files it imports relatively (static imports, type-only imports,
 * re-exports and dynamic imports alike; packages and non-TypeScript assets such as `?raw` imports are left out).
 */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = relativeImports(readFileSync(file, 'utf8')).map((spec) => resolveModule(file, spec));
    graph.set(file, [...new Set(targets.filter((t): t is string => t !== null))]);
  }
  return graph;
}

/** The relative specifiers a file's text imports or re-exports from (type-only and dynamic imports included). */
function relativeImports(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'));
}

/**
 * Every cycle a depth-first search meets (one per back edge), each written `a.ts -> b.ts -> a.ts` starting at its
 * alphabetically first file, without repeats. Empty when the graph has no cycle.
 */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles = new Set<string>();
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const s = state.get(next);
      if (s === 'open') {
        const loop = stack.slice(stack.lastIndexOf(next));
        const first = loop.indexOf([...loop].sort()[0] as string);
        const rotated = [...loop.slice(first), ...loop.slice(0, first)];
        cycles.add([...rotated, rotated[0]].join(' -> '));
      } else if (s === undefined) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return [...cycles].sort();
}

describe('import cycles', () => {
  it('the detector reports each cycle of a small graph as a path, and nothing for an acyclic one', () => {
    const graph = new Map([
      ['b.ts', ['a.ts', 'c.ts']],
      ['a.ts', ['b.ts']],
      ['c.ts', ['d.ts']],
      ['d.ts', ['d.ts']],
      ['e.ts', ['a.ts']],
    ]);
    expect(findCycles(graph)).toEqual(['a.ts -> b.ts -> a.ts', 'd.ts -> d.ts']);
    expect(
      findCycles(
        new Map([
          ['a.ts', ['b.ts', 'c.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('counts type-only imports, re-exports and dynamic imports as edges, and packages not at all', () => {
    const text = [
      "import type { A } from './a';",
      "import { type B } from '../b';",
      "export * from './c';",
      "export { d } from './d';",
      "const e = await import('./e');",
      "import { z } from 'zod';",
    ].join('\n');
    expect(relativeImports(text)).toEqual(['./a', '../b', './c', './d', './e']);
  });

  it('no .ts/.tsx file in src/ or cli/ is part of an import cycle (type-only imports included)', () => {
    const files = [join(root, 'src'), join(root, 'cli')]
      .flatMap((dir) => sourceFiles(dir))
      .filter((f) => /\.tsx?$/.test(f));
    expect(files.length).toBeGreaterThan(100);
    const graph = importGraph(files);
    const named = new Map([...graph].map(([f, ts]) => [relative(root, f), ts.map((t) => relative(root, t))]));
    expect(findCycles(named)).toEqual([]);
  });
});

describe('src/core layering', () => {
  it('the scanner flags each kind of forbidden dependency (so the real check can fail)', () => {
    const file = join(coreDir, 'example.ts');
    const bad = [
      "import * as tf from '@tensorflow/tfjs';",
      "import { useState } from 'react';",
      "export { x } from '../engine/trainer';",
      "const m = await import('../../cli/replay');",
      "import { readFileSync } from 'fs';",
      "import os from 'node:os';",
      'const w = window.innerWidth;',
      'document.title = "x";',
    ].join('\n');
    expect(violations(file, bad)).toHaveLength(8);
    const good = [
      "import { z } from 'zod';",
      "import { mean } from './windowedMean';",
      'const o = { window: 3 }; o.window;',
      'function f(window: number) { return window; }',
    ].join('\n');
    expect(violations(file, good)).toEqual([]);
  });

  it('no file under src/core imports tfjs, React, DOM, Node built-ins, engine, app or cli', () => {
    const files = sourceFiles(coreDir);
    expect(files.length).toBeGreaterThan(0);
    const found = files.flatMap((file) =>
      violations(file, readFileSync(file, 'utf8')).map((v) => `${relative(root, file)}: ${v}`),
    );
    expect(found).toEqual([]);
  });
});
