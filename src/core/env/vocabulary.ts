// A word-level tokenizer over a small closed vocabulary. Ids 0..7 are the SPECIAL_TOKENS of ./types; the
// environment's words follow in a fixed order, so ids are stable for a given environment version.
import { SPECIAL_TOKENS, Special, type Vocabulary } from './types';

export const MAX_VOCAB_SIZE = 128;

/** Build a vocabulary from the environment's words (specials are prepended). `heads` must be among `words`. */
export function createVocabulary(words: readonly string[], heads: readonly string[]): Vocabulary {
  const all: string[] = [...SPECIAL_TOKENS, ...words];
  if (all.length > MAX_VOCAB_SIZE) {
    throw new Error(`vocabulary: ${all.length} entries, at most ${MAX_VOCAB_SIZE} allowed`);
  }
  const index = new Map<string, number>();
  all.forEach((w, i) => {
    if (w.length === 0 || /\s/.test(w)) throw new Error(`vocabulary: word ${JSON.stringify(w)} is empty or has spaces`);
    if (index.has(w)) throw new Error(`vocabulary: duplicate word "${w}"`);
    index.set(w, i);
  });
  const id = (word: string): number => {
    const v = index.get(word);
    if (v === undefined) throw new Error(`vocabulary: unknown word "${word}"`);
    return v;
  };
  const actionHeads = heads.map(id);
  return {
    words: all,
    size: all.length,
    id,
    encode(text: string): number[] {
      const out: number[] = [];
      for (const w of text.split(/\s+/)) {
        if (w.length > 0) out.push(index.get(w) ?? Special.unk);
      }
      return out;
    },
    decode(ids: ArrayLike<number>): string {
      const parts: string[] = [];
      for (let i = 0; i < ids.length; i++) parts.push(all[ids[i] as number] ?? '<unk>');
      return parts.join(' ');
    },
    actionHeads,
  };
}
