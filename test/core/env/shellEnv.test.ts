import { describe, expect, it } from 'vitest';
import { SHELL_DIRS, SHELL_SERVICES, ShellEnv } from '../../../src/core/env/shellEnv';
import { play } from './helpers';

const env = new ShellEnv({ seed: 5 });
const tasks = env.tasks('train', 300);
const password = tasks.find((t) => t.world.kind === 'password')!;
const errors = tasks.find((t) => t.world.kind === 'error')!;

describe('shell environment', () => {
  it('asks for a password or a count of log lines of one service, in a short prompt', () => {
    expect(password.goal).toMatch(/^find the password of (nginx|redis|mysql|sshd|cron|kafka)$/);
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
      expect(t.world.dirs.length).toBeGreaterThanOrEqual(5);
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

  it('lists the present directories with ls and reports missing ones and missing files as invalid', () => {
    const absent = SHELL_DIRS.findIndex((_, d) => !password.world.dirs.includes(d));
    const present = password.world.dirs.find((d) => d !== password.world.targetDir)!;
    const { batch, observations } = play(env, password, [
      ['ls'],
      ['ls', SHELL_DIRS[absent]!],
      ['cat', SHELL_DIRS[present]!, password.world.targetFile],
    ]);
    expect(observations[0]).toBe(password.world.dirs.map((d) => SHELL_DIRS[d]).join(' '));
    expect(observations[1]).toBe('no such dir');
    expect(observations[2]).toBe('no such file');
    expect(batch.invalidActions[0]).toBe(2);
    expect(batch.done[0]).toBe(0);
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
});
