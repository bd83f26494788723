import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutcomePageError, pageNumber, parseOutcomePage } from '../../../src/core/experiment/outcomePage';
import { seedInterval } from '../../../src/core/experiment/seedStatistics';

const ROOT = join(__dirname, '../../..');
const shell = 'docs/outcomes/protocol-shell-reporting.md';
const page = parseOutcomePage(readFileSync(join(ROOT, shell), 'utf8'), shell);

describe('a held-out protocol page read back', () => {
  it('names its environment and commit', () => {
    expect(page).toMatchObject({ env: 'shell', commit: 'e1ba75a', date: '2026-12-03' });
  });

  it('reads the primary paired line with its per-seed differences, and not the T = 0.4 one', () => {
    const opd = page.paired.filter((p) => p.arm === 'OPD throughout');
    expect(opd).toHaveLength(1);
    expect(opd[0]).toMatchObject({ mean: 3.6, halfWidth: 11.6, n: 10 });
    expect(opd[0]!.perSeed[0]).toEqual({ seed: 1000, difference: 16.7 });
    expect(opd[0]!.perSeed[5]).toEqual({ seed: 1005, difference: -33 });
  });

  it('has per-seed differences whose 95 % t-interval is the printed one, to the printed decimal', () => {
    const opd = page.paired.find((p) => p.arm === 'OPD throughout')!;
    const i = seedInterval(opd.perSeed.map((p) => p.difference));
    // the per-seed values are rounded to 0.1, so the recomputed mean and half-width agree within 0.1
    expect(Math.abs(i.mean - opd.mean)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(i.halfWidth - opd.halfWidth)).toBeLessThanOrEqual(0.1);
  });

  it('reads each arm row once, from the first (T = 1) table', () => {
    const retire = page.rows.filter((r) => r.arm === 'RetireOPD (adaptive gate)');
    expect(retire).toEqual([{ arm: 'RetireOPD (adaptive gate)', n: 10, mean: 64, halfWidth: 11 }]);
    expect(page.rows.find((r) => r.arm === 'OPD throughout, no misleading skills')).toMatchObject({
      n: 10,
      mean: 96.4,
    });
  });

  it('refuses a page that is not a protocol page, naming the file', () => {
    expect(() => parseOutcomePage('# Something else\n', 'x.md')).toThrow(OutcomePageError);
    expect(() => parseOutcomePage('# Something else\n', 'x.md')).toThrow(/x\.md:1: expected "# Protocol: ENV/);
  });

  it('reads the page’s minus sign and refuses what is not a number', () => {
    expect([pageNumber('−33.0'), pageNumber('+4.9'), pageNumber('-1')]).toEqual([-33, 4.9, -1]);
    expect(() => pageNumber('n/a')).toThrow(/"n\/a" is not a number/);
  });
});
