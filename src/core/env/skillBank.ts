// The SkillBank: short skill texts with keywords, retrieved by keyword overlap with the task text. The retrieved
// skill is the teacher's privileged context c+. A configurable fraction of the skills is misleading (chosen by the
// environment seed, exactly round(fraction · size) of them), so a skill-following teacher is good but not perfect.
import type { Rng } from '../rng';

export interface SkillEntry {
  /** words that must appear in the task text for this skill to match; score = number present */
  readonly keywords: readonly string[];
  /** the true skill text */
  readonly text: string;
  /** the text used instead when this entry is one of the misleading ones */
  readonly misleadingText: string;
}

export interface RetrievedSkill {
  readonly index: number;
  readonly text: string;
  readonly misleading: boolean;
  readonly score: number;
}

export class SkillBank {
  readonly entries: readonly SkillEntry[];
  /** misleading[i] = 1 when entry i points the wrong way */
  readonly misleading: Uint8Array;

  constructor(entries: readonly SkillEntry[], misleadingFraction: number, rng: Rng) {
    if (!(misleadingFraction >= 0 && misleadingFraction <= 1)) {
      throw new Error(`misleadingSkillFraction: expected a number in [0, 1], got ${misleadingFraction}`);
    }
    this.entries = entries;
    this.misleading = new Uint8Array(entries.length);
    const order = rng.shuffle(entries.map((_, i) => i));
    const count = Math.round(misleadingFraction * entries.length);
    for (let k = 0; k < count; k++) this.misleading[order[k] as number] = 1;
  }

  get size(): number {
    return this.entries.length;
  }

  /** the entry with the most keywords present in the text (ties: lowest index); null when none matches */
  retrieve(text: string): RetrievedSkill | null {
    const words = new Set(text.split(/\s+/));
    let best = -1;
    let bestScore = 0;
    this.entries.forEach((e, i) => {
      let score = 0;
      for (const k of e.keywords) if (words.has(k)) score++;
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    });
    if (best < 0) return null;
    const entry = this.entries[best] as SkillEntry;
    const misleading = this.misleading[best] === 1;
    return { index: best, text: misleading ? entry.misleadingText : entry.text, misleading, score: bestScore };
  }
}
