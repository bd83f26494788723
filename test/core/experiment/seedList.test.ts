import { describe, expect, it } from 'vitest';
import { parseSeedList } from '../../../src/core/experiment/seedList';

const EXPECTED = 'expected comma-separated integers ≥ 0 in decimal digits, at most 4294967295 (e.g. 0,1,2)';

describe('parseSeedList', () => {
  it('reads comma-separated decimal seeds, blanks around an entry allowed, in the order given', () => {
    expect(parseSeedList('0, 1,2')).toEqual({ value: [0, 1, 2] });
    expect(parseSeedList(' 1009 ,1000')).toEqual({ value: [1009, 1000] });
    expect(parseSeedList('4294967295')).toEqual({ value: [4294967295] });
  });

  it('refuses every other number form, naming the entry as typed', () => {
    const cases: [string, string][] = [
      ['0x10', 'entry 1 of "0x10" is "0x10"'],
      ['0,1e2', 'entry 2 of "0,1e2" is "1e2"'],
      ['-0', 'entry 1 of "-0" is "-0"'],
      ['1,+2', 'entry 2 of "1,+2" is "+2"'],
      ['1.0', 'entry 1 of "1.0" is "1.0"'],
      ['4294967296', 'entry 1 of "4294967296" is "4294967296"'],
      ['0,,1', 'entry 2 of "0,,1" is empty'],
      ['0,1,', 'entry 3 of "0,1," is empty'],
    ];
    for (const [text, where] of cases) expect(parseSeedList(text), text).toEqual({ error: `${EXPECTED}; ${where}` });
    expect(parseSeedList('  ')).toEqual({ error: `${EXPECTED}; got nothing` });
  });

  it('refuses a seed given twice, naming both entries as typed', () => {
    expect(parseSeedList('0,1,01')).toEqual({ error: 'seed 1 is given twice ("1" and "01"): each seed once' });
    expect(parseSeedList('3, 3')).toEqual({ error: 'seed 3 is given twice ("3" and "3"): each seed once' });
  });
});
