import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../src/core/experiment/configSchema';
import { DEFAULT_WORLD, SHIPPED_WORLDS, worldName, worldTeacher } from '../../../src/core/experiment/taskWorlds';

describe('task worlds and their teachers', () => {
  it('takes the presets’ own world to be the config’s default env.seed', () => {
    expect(DEFAULT_WORLD).toBe(DEFAULT_CONFIG.env.seed);
  });

  it('gives the presets’ world the preset’s teacher and every other shipped world its own', () => {
    expect(worldTeacher('shell', DEFAULT_WORLD, 'teachers/shell')).toBe('teachers/shell');
    expect(worldTeacher('shell', 2, 'teachers/shell')).toBe('teachers/shell-world2');
    expect(worldName(3)).toBe('world 3');
  });

  it('refuses a world without a shipped teacher, naming the worlds that have one', () => {
    expect(() => worldTeacher('shell', 7, 'teachers/shell')).toThrow(
      'env.seed 7: no shipped shell teacher for that world (worlds with one: 1, 2, 3)',
    );
    expect(() => worldTeacher('house', 2, 'teachers/house')).toThrow(/worlds with one: 1\)/);
    expect(worldTeacher('shop', 3, 'teachers/shop')).toBe('teachers/shop-world3');
  });

  it('ships a teacher folder, trained in its own world, for every world it lists', () => {
    for (const [env, worlds] of Object.entries(SHIPPED_WORLDS))
      for (const w of worlds) {
        const dir = join('public', worldTeacher(env, w, ''));
        expect(existsSync(join(dir, 'model.json')), dir).toBe(true);
        const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as {
          env: { name: string; seed: number };
        };
        expect(state.env).toMatchObject({ name: env, seed: w });
      }
  });
});
