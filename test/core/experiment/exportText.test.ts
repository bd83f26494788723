import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../src/core/experiment/config';
import { CSV_FORMULA_START, markdownCode, markdownText } from '../../../src/core/experiment/exportText';
import { formatRunReport } from '../../../src/core/experiment/report';
import { summary } from '../../app/runFixtures';

describe('text written into Markdown and CSV files', () => {
  it('escapes Markdown and HTML so user text is shown as typed', () => {
    expect(markdownText('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert(1)&gt;');
    expect(markdownText('a | b & `c` [d](e) \\ f\ng')).toBe('a \\| b &amp; \\`c\\` \\[d\\](e) \\\\ f g');
    expect(markdownText('plain text, 0.5 · S_T')).toBe('plain text, 0.5 · S_T');
    expect(markdownCode('fixed:40')).toBe('`fixed:40`');
    expect(markdownCode('a`<b>')).toBe('a\\`&lt;b&gt;');
  });

  it('marks every cell start a spreadsheet reads as a formula, line breaks after it included', () => {
    for (const cell of ['=1+2', '+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1', '=1\n+2'])
      expect(CSV_FORMULA_START.test(cell)).toBe(true);
    for (const cell of ['plain', ' =1', "'=1", '']) expect(CSV_FORMULA_START.test(cell)).toBe(false);
  });

  it('writes report.md with a hostile run name and error as literal text', () => {
    const s = {
      ...summary('failed'),
      name: '<img src=x onerror=alert(1)>',
      error: 'bad `x` | [y](z)',
    };
    const report = formatRunReport({ ...DEFAULT_CONFIG, name: s.name }, s).split('\n');
    expect(report[0]).toBe('# &lt;img src=x onerror=alert(1)&gt; — shell, seed 3');
    expect(report[2]).toMatch(/^Status: \*\*failed\*\* — bad \\`x\\` \\\| \\\[y\\\]\(z\)\. Backend /);
    expect(report.join('\n')).not.toContain('<img');
  });
});
