import { describe, expect, it } from 'vitest';
import { SHELL_DIRS, SHELL_SERVICES, ShellEnv } from '../../../src/core/env/shellEnv';
import { play } from './helpers';

const env = new ShellEnv({ seed: 5 });
const tasks = env.tasks('train', 300);
const password = tasks.find((t) => t.world.kind === 'password')!;
const errors = tasks.find((t) => t.world.kind === 'error')!;

describe('shell environment', () => {
  it('asks for a password or a count of log lines of one service, in a short prompt', () => {
    expect(password.goal).toMatch(/^find the password of (nginx|redis|mysql|sshd|cron|kafka|mongo|httpd)$/);
    expect(errors.goal).toMatch(/^count error lines of \w+$/);
  });

  it('keeps every service key and log in the directory the universe assigns it, in every task', () => {
    for (const t of tasks) {
      for (const f of t.world.files) {
        const m = /^(\w+)\.(key|log)$/.exec(f.name);
        if (m === null) continue;
        const s = SHELL_SERVICES.indexOf(m[1] as (typeof SHELL_SERVICES)[number]);
        expect(f.dir).toBe(m[2] === 'key' ? env.keyDir[s] : env.logDir[s]);
      }
      // every directory exists in every task: listing the root tells nothing about where a file is
      expect(t.world.dirs).toEqual(SHELL_DIRS.map((_, d) => d));
    }
  });

  it('shows the password with cat and ends with "correct" when it is answered', () => {
    const dir = SHELL_DIRS[password.world.targetDir]!;
    const { batch, observations } = play(env, password, [
      ['cat', dir, password.world.targetFile],
      ['answer', password.world.answer],
    ]);
    expect(observations).toEqual([`password ${password.world.answer}`, 'correct']);
    expect(batch.success[0]).toBe(1);
    expect(batch.reward[0]).toBe(1);
  });

  it('counts lines with grep -c exactly as the log content says', () => {
    const dir = errors.world.targetDir;
    const { observations } = play(env, errors, [['grep', 'error', SHELL_DIRS[dir]!]]);
    const expected = errors.world.files
      .filter((f) => f.dir === dir)
      .map((f) => `${f.name} ${f.name.endsWith('.key') ? 0 : f.content.filter((w) => w === 'error').length}`)
      .join(' ');
    expect(observations[0]).toBe(expected);
    expect(observations[0]).toContain(`${errors.world.targetFile} ${errors.world.answer}`);
  });

  it('lists the first 8 directories with ls and reports missing directories and files as invalid', () => {
    const other = SHELL_DIRS.findIndex((_, d) => !password.world.files.some((f) => f.dir === d));
    const { batch, observations } = play(env, password, [
      ['ls'],
      ['ls', 'nginx'],
      ['cat', SHELL_DIRS[other]!, password.world.targetFile],
    ]);
    expect(observations[0]).toBe(SHELL_DIRS.slice(0, 8).join(' '));
    expect(observations[1]).toBe('no such dir');
    expect(observations[2]).toBe('no such file');
    expect(batch.invalidActions[0]).toBe(2);
    expect(batch.done[0]).toBe(1); // the third turn is the last
  });

  it('ends with "wrong" and reward 0 on a wrong answer', () => {
    const wrong = password.world.answer === 'tiger' ? 'maple' : 'tiger';
    const { batch, observations } = play(env, password, [['answer', wrong]]);
    expect(observations).toEqual(['wrong']);
    expect(batch.done[0]).toBe(1);
    expect(batch.success[0]).toBe(0);
    expect(batch.reward[0]).toBe(0);
  });

  it('retrieves the skill of the asked service and file, pointing at its directory unless misleading', () => {
    for (const t of tasks) {
      const service = SHELL_SERVICES[t.world.service]!;
      const file = t.world.kind === 'password' ? 'key' : 'log';
      expect(t.skill).toMatch(new RegExp(`^${service} ${file} in \\w+$`));
      const pointsRight = t.skill.endsWith(` ${SHELL_DIRS[t.world.targetDir]}`);
      expect(pointsRight).toBe(!t.skillMisleading);
    }
  });

  it('demonstrates without the skill in an order that ignores the facts: the explorer’s first probe is uniform', () => {
    // the explorer starts its cyclic probe order at a random directory, whatever the task: over many tasks of one
    // goal its first directories spread over all 20, so its demonstrations cannot teach where a file is
    const goal = password.goal;
    const same = env.tasks('train', 2000).filter((t) => t.goal === goal);
    const firstDirs = new Set(env.demonstrate(same, 'explorer', 3).map((tr) => env.vocab.words[tr.tokens[8]!]));
    expect(same.length).toBeGreaterThan(20);
    expect(firstDirs.size).toBeGreaterThan(10);
    // whereas the skill follower probes where its skill says, every time
    const followerDirs = new Set(env.demonstrate(same, 'skillFollower', 3).map((tr) => env.vocab.words[tr.tokens[8]!]));
    expect([...followerDirs]).toEqual([password.skill.split(' ').at(-1)]);
  });

  it('with randomFacts (the negative control) draws each task’s directories anew and the skill follows them', () => {
    const control = new ShellEnv({ seed: 5, randomFacts: true });
    const ct = control.tasks('validation', 400);
    const byGoal = new Map<string, Set<number>>();
    for (const t of ct) byGoal.set(t.goal, (byGoal.get(t.goal) ?? new Set()).add(t.world.targetDir));
    // a goal seen n times lands in many directories (fixed facts: exactly one)
    const spread = [...byGoal.values()].filter((d) => d.size >= 4).length;
    expect(spread).toBeGreaterThan(byGoal.size / 2);
    for (const t of ct) expect(t.skill.endsWith(` ${SHELL_DIRS[t.world.targetDir]}`)).toBe(!t.skillMisleading);
    // the universe's own facts are fixed: same goal, same directory
    const fixed = new Map<string, Set<number>>();
    for (const t of env.tasks('validation', 400))
      fixed.set(t.goal, (fixed.get(t.goal) ?? new Set()).add(t.world.targetDir));
    for (const d of fixed.values()) expect(d.size).toBe(1);
  });
});
