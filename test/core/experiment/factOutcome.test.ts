import { describe, expect, it } from 'vitest';
import { misleadingFacts } from '../../../src/core/experiment/factOutcome';

describe('misleadingFacts', () => {
  it('groups episodes by misleading entry, counting tasks once and averaging every attempt', () => {
    const a1 = { skillMisleading: true, skill: 'nginx key in etc' };
    const a2 = { skillMisleading: true, skill: 'nginx key in etc' };
    const b = { skillMisleading: true, skill: 'cron log in tmp' };
    const truthful = { skillMisleading: false, skill: 'redis key in var' };
    // two attempts per task, as the evaluation samples passN attempts of each task
    const episodes = [a1, a1, a2, a2, b, b, truthful, truthful];
    const success = [1, 0, 1, 1, 0, 0, 1, 1];
    expect(misleadingFacts(episodes, success)).toEqual([
      { skill: 'cron log in tmp', tasks: 1, successRate: 0 },
      { skill: 'nginx key in etc', tasks: 2, successRate: 0.75 },
    ]);
  });

  it('is empty when no task retrieves a misleading entry', () => {
    expect(misleadingFacts([{ skillMisleading: false }], [1])).toEqual([]);
  });
});
