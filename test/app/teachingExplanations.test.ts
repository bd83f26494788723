// The explanations (src/app/teaching/explanations.ts) are the one source of the teaching texts: every formula must
// typeset with KaTeX, every link must land on an anchor of docs/METHODS.md, docs/GLOSSARY.md must be generated from
// them, and the README must link to the glossary rather than copy its texts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import katex from 'katex';
import { describe, expect, it } from 'vitest';
import { EXPLANATION_IDS, EXPLANATIONS, methodsLink } from '../../src/app/teaching/explanations';
import { GLOSSARY_PATH, glossaryMarkdown } from '../../src/app/teaching/glossaryMarkdown';
import { TRAIN_CHARTS } from '../../src/app/teaching/ChartExplainers';
import { parseInline, parseMethods } from '../../src/app/teaching/methodsDocument';
import { ROOT } from './appServer';

const methods = readFileSync(join(ROOT, 'docs/METHODS.md'), 'utf8');

describe('the teaching explanations', () => {
  it('typeset every formula with KaTeX without an error', () => {
    for (const id of EXPLANATION_IDS) {
      const e = EXPLANATIONS[id];
      if (!('formula' in e)) continue;
      expect(() => katex.renderToString(e.formula, { throwOnError: true, displayMode: true }), id).not.toThrow();
    }
  });

  it('link every explanation to an anchor that exists in docs/METHODS.md', () => {
    const anchors = new Set([...methods.matchAll(/<a id="([a-z0-9-]+)"><\/a>/g)].map((m) => m[1]));
    for (const id of EXPLANATION_IDS) {
      expect(anchors.has(EXPLANATIONS[id].anchor), `${id} → ${EXPLANATIONS[id].anchor}`).toBe(true);
      expect(methodsLink(id)).toBe(`docs/METHODS.md#${EXPLANATIONS[id].anchor}`);
    }
  });

  it('state the sign convention of K and ρ the method states', () => {
    expect(EXPLANATIONS.k_window_mean.sign).toContain('K = −g');
    expect(EXPLANATIONS.alignment_progress.sign).toContain('ρ > 0 means the gap is still shrinking');
    expect(methods).toContain('ρ > 0 means\n  the gap is still shrinking');
  });

  it('explain every chart of the Train view', () => {
    for (const id of Object.values(TRAIN_CHARTS)) expect(EXPLANATION_IDS).toContain(id);
  });

  it('are what docs/GLOSSARY.md says (regenerate with UPDATE_GLOSSARY=1)', () => {
    const path = join(ROOT, GLOSSARY_PATH);
    const want = glossaryMarkdown();
    if (process.env.UPDATE_GLOSSARY === '1') writeFileSync(path, want);
    expect(readFileSync(path, 'utf8')).toBe(want);
  });

  it('are linked from the README, not copied into it', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('(docs/GLOSSARY.md)');
    for (const id of EXPLANATION_IDS) expect(readme.includes(EXPLANATIONS[id].what), id).toBe(false);
  });
});

describe('the Method view’s reading of docs/METHODS.md', () => {
  it('keeps every anchor on the block it introduces', () => {
    const blocks = parseMethods(methods);
    const anchors = [...methods.matchAll(/<a id="([a-z0-9-]+)"><\/a>/g)].map((m) => m[1]);
    expect(blocks.filter((b) => b.anchor !== null).map((b) => b.anchor)).toEqual(anchors);
    const rho = blocks.find((b) => b.anchor === 'gate-alignment-progress');
    expect(rho?.kind).toBe('list');
    const loss = blocks.find((b) => b.anchor === 'actobs-loss');
    expect(loss?.kind).toBe('paragraph');
    expect(blocks[blocks.indexOf(loss as (typeof blocks)[number]) + 1]?.kind).toBe('formula');
  });

  it('splits code and bold from text', () => {
    expect(parseInline('the gap `g_k` is **signed** here')).toEqual([
      { kind: 'text', text: 'the gap ' },
      { kind: 'code', text: 'g_k' },
      { kind: 'text', text: ' is ' },
      { kind: 'strong', text: 'signed' },
      { kind: 'text', text: ' here' },
    ]);
  });
});
