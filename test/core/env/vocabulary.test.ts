import { describe, expect, it } from 'vitest';
import { Special } from '../../../src/core/env';
import { createVocabulary } from '../../../src/core/env/vocabulary';

describe('vocabulary', () => {
  const v = createVocabulary(['ls', 'cat', 'etc', 'nginx.key'], ['ls', 'cat']);

  it('puts the specials at ids 0..7 and the words after them', () => {
    expect(v.size).toBe(12);
    expect(v.id('<eoa>')).toBe(Special.eoa);
    expect(v.id('ls')).toBe(8);
    expect(v.actionHeads).toEqual([8, 9]);
  });

  it('encodes whitespace-separated text, unknown words as <unk>, and decodes back', () => {
    expect(v.encode('  cat etc  nginx.key ')).toEqual([9, 10, 11]);
    expect(v.encode('cat passwd')).toEqual([9, Special.unk]);
    expect(v.decode([Special.bos, 9, 10])).toBe('<bos> cat etc');
  });

  it('names the word it does not know, and rejects duplicates and oversize vocabularies', () => {
    expect(() => v.id('grep')).toThrow(/unknown word "grep"/);
    expect(() => createVocabulary(['a', 'a'], [])).toThrow(/duplicate word "a"/);
    expect(() =>
      createVocabulary(
        Array.from({ length: 121 }, (_, i) => `w${i}`),
        [],
      ),
    ).toThrow(/129 entries/);
  });
});
