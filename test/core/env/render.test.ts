import { describe, expect, it } from 'vitest';
import { TokenClass, classRuns, createEnv, renderTrajectory } from '../../../src/core/env';

const env = createEnv('shell', { seed: 3 });
const task = env.task('train', 0);
const traj = env.expert(task);

describe('trajectory rendering', () => {
  it('groups tokens into class runs that cover the stream exactly', () => {
    const runs = classRuns(env.vocab, traj.tokens, traj.classes);
    expect(runs.flatMap((r) => r.tokens)).toEqual(traj.tokens);
    expect(runs[1]).toMatchObject({ cls: TokenClass.prompt, text: task.goal, start: 1 });
    for (let k = 1; k < runs.length; k++) expect(runs[k]!.cls).not.toBe(runs[k - 1]!.cls);
  });

  it('labels each run with its class name, and the compact style shows action → observation', () => {
    const text = renderTrajectory(env.vocab, traj);
    expect(text).toContain(`prompt      ${task.goal}`);
    expect(text).toMatch(/actionHead {2}(cat|grep)/);
    expect(text).toContain('observation <obs>');
    expect(text).toContain(`skill       ${task.skill}`);
    const compact = renderTrajectory(env.vocab, traj, { style: 'compact' });
    expect(compact).toMatch(/turn 2 {6}answer \S+ {2}→ {2}correct/);
    expect(renderTrajectory(env.vocab, traj, { ansi: true })).toContain('\x1b[');
  });
});
