// src/core is pure TypeScript that runs in the browser, in workers and in Node alike: no tfjs, no React/UI, no DOM,
// no Node built-ins, and no imports from engine, app or cli. This scans the sources with the TypeScript parser
// (imports, re-exports, dynamic imports, require) and complements the eslint rule.
import { readdirSync, readFileSync, statSync } from 'node:fs';
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
