import { describe, expect, it } from 'vitest';
import type { HelpsCell } from '../../src/core/experiment/helpsMap';
import { loadPreset, PRESET_NAMES } from '../../src/core/experiment/preset';
import { cellQueue } from '../../src/app/helps/cellQueue';
import { lookupPreset } from '../support/presets';

const cell = (world: number, misleadingFraction: number): HelpsCell => ({
  env: 'shell',
  world,
  misleadingFraction,
  source: 'p.md',
  n: 5,
  mean: 0,
  halfWidth: 1,
  perSeed: null,
  note: '',
  runIds: [],
});
const retireShell = () => loadPreset('retire-shell', lookupPreset, PRESET_NAMES);

describe('the queue a where-it-helps cell starts', () => {
  it('runs both arms on the first reporting seeds at the cell’s level, in the presets’ world with its teacher', () => {
    const q = cellQueue(cell(1, 0.125), retireShell(), 2);
    expect(q.items.map((i) => [i.config.seed, i.config.student.schedule]).sort()).toEqual([
      [1000, 'adaptive'],
      [1000, 'never'],
      [1001, 'adaptive'],
      [1001, 'never'],
    ]);
    for (const i of q.items) {
      expect(i.config.env).toMatchObject({ seed: 1, misleadingSkillFraction: 0.125 });
      expect(i.config.teacher.checkpoint).toBe('teachers/shell');
    }
  });

  it('runs another world’s cell in that world with the teacher trained there', () => {
    const q = cellQueue(cell(3, 0.625), retireShell(), 1);
    expect(q.items.map((i) => [i.config.env.seed, i.config.teacher.checkpoint])).toEqual([
      [3, 'teachers/shell-world3'],
      [3, 'teachers/shell-world3'],
    ]);
  });

  it('refuses a world that ships no teacher, naming the ones that do', () => {
    expect(() => cellQueue(cell(9, 0), retireShell(), 1)).toThrow(/env.seed 9: no shipped shell teacher/);
  });
});
