// The Method view's formulas: every TeX entry still names a formula of docs/METHODS.md, every formula-looking code
// span of the file has one, and KaTeX typesets each without an error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import katex from 'katex';
import { describe, expect, it } from 'vitest';
import { parseMethods } from '../../src/app/teaching/methodsDocument';
import { FORMULA_MARK, METHODS_TEX } from '../../src/app/teaching/methodsTeX';
import { ROOT } from './appServer';

const blocks = parseMethods(readFileSync(join(ROOT, 'docs/METHODS.md'), 'utf8'));
const spans = new Set(
  blocks.flatMap((b) =>
    b.kind === 'paragraph'
      ? b.inline.filter((p) => p.kind === 'code').map((p) => p.text)
      : b.kind === 'list'
        ? b.items.flatMap((item) => item.filter((p) => p.kind === 'code').map((p) => p.text))
        : b.kind === 'formula'
          ? [b.text]
          : [],
  ),
);

describe('the Method view’s TeX', () => {
  it('names only formulas that docs/METHODS.md still writes', () => {
    expect(Object.keys(METHODS_TEX).filter((k) => !spans.has(k))).toEqual([]);
  });

  it('covers every formula-looking code span of docs/METHODS.md', () => {
    expect([...spans].filter((s) => FORMULA_MARK.test(s) && METHODS_TEX[s] === undefined)).toEqual([]);
  });

  it('leaves config keys, metric names and paths as code', () => {
    for (const s of [
      'opd/teacher_student_gap_mean',
      'teacher_forward_skipped',
      'pass@k',
      'verl/trainer/ppo/retire_opd.py',
    ])
      expect([spans.has(s), FORMULA_MARK.test(s), METHODS_TEX[s]]).toEqual([true, false, undefined]);
  });

  it('typesets every entry without a KaTeX error', () => {
    for (const tex of Object.values(METHODS_TEX))
      expect(() => katex.renderToString(tex, { throwOnError: true }), tex).not.toThrow();
  });
});
