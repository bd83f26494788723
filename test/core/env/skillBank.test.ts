import { describe, expect, it } from 'vitest';
import { ENV_NAMES, createEnv } from '../../../src/core/env';
import { SkillBank, type SkillEntry } from '../../../src/core/env/skillBank';
import { createRng } from '../../../src/core/rng';

const entries: SkillEntry[] = [
  { keywords: ['nginx', 'password'], text: 'nginx key in etc', misleadingText: 'nginx key in var' },
  { keywords: ['nginx', 'lines'], text: 'nginx log in opt', misleadingText: 'nginx log in srv' },
  { keywords: ['redis', 'password'], text: 'redis key in home', misleadingText: 'redis key in tmp' },
];

describe('SkillBank', () => {
  it('retrieves the entry with the most keywords present, lowest index on ties', () => {
    const bank = new SkillBank(entries, 0, createRng(1));
    expect(bank.retrieve('find the password of nginx')?.index).toBe(0);
    expect(bank.retrieve('count error lines of nginx')?.index).toBe(1);
    expect(bank.retrieve('find the password of redis')?.index).toBe(2);
    expect(bank.retrieve('nginx')?.index).toBe(0); // tie between 0 and 1
    expect(bank.retrieve('nothing relevant')).toBeNull();
  });

  it('makes exactly round(fraction · size) entries misleading and serves their misleading text', () => {
    for (const [f, n] of [
      [0, 0],
      [0.2, 1],
      [0.5, 2],
      [1, 3],
    ] as const) {
      const bank = new SkillBank(entries, f, createRng(2));
      expect(bank.misleading.reduce((a, b) => a + b, 0)).toBe(n);
    }
    const all = new SkillBank(entries, 1, createRng(2));
    expect(all.retrieve('find the password of nginx')).toMatchObject({ text: 'nginx key in var', misleading: true });
    expect(() => new SkillBank(entries, 1.2, createRng(2))).toThrow(/misleadingSkillFraction/);
  });

  it.each(ENV_NAMES)('honours the misleading fraction in the %s environment, task by task', (name) => {
    for (const f of [0, 0.25, 0.5, 1]) {
      const env = createEnv(name, { seed: 8, misleadingSkillFraction: f });
      const bank = env.skillBank;
      expect(bank.misleading.reduce((a, b) => a + b, 0)).toBe(Math.round(f * bank.size));
      for (const t of env.tasks('train', 200)) {
        const r = bank.retrieve(t.goal)!;
        expect(t.skillMisleading).toBe(bank.misleading[r.index] === 1);
        expect(t.skill).toBe(r.text);
      }
    }
  });
});
