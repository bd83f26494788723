// The run folder's exclusive lock (cli/runFolderLock.ts): created atomically with its owner, re-entrant in its own
// process, refused (one line naming the folder and the owner) while its owner lives, taken over with a note when
// the owner on this host is gone, and removed on release only while it is still this process's. Two real processes
// at once on one folder: experiment.e2e.test.ts.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunFolderError } from '../../src/core/errors';
import {
  acquireRunFolderLock,
  heldLockPaths,
  isStale,
  LOCK_FILE,
  lockRefusal,
  parseLockOwner,
  type LockOwner,
} from '../../cli/runFolderLock';
import { RunFolder } from '../../cli/runFolder';
import { DEFAULT_CONFIG } from '../../src/core/experiment/config';

const tmp = mkdtempSync(join(tmpdir(), 'run-folder-lock-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const freshDir = (): string => {
  const d = join(tmp, `f${n++}`);
  RunFolder.prepareEmpty(d, '--out');
  return d;
};

/** A pid no live process has (the highest one a signal check answers ESRCH for), without spawning a process. */
function deadPid(): number {
  for (let pid = 4_194_303; pid > 1; pid--) {
    try {
      process.kill(pid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
  throw new Error('no unused pid found');
}

const owner = (o: Partial<LockOwner>): LockOwner => ({
  pid: 4242,
  host: 'lab-host',
  since: '2026-12-06T01:02:03.000Z',
  token: 'feedfacefeedface',
  ...o,
});

describe('the lock file', () => {
  it('is created in the folder holding this process as owner: pid, host, start time', () => {
    const dir = freshDir();
    const lock = acquireRunFolderLock(dir);
    const saved = parseLockOwner(readFileSync(join(dir, LOCK_FILE), 'utf8'));
    expect(saved).toEqual(lock.owner);
    expect([saved!.pid, saved!.host]).toEqual([process.pid, hostname()]);
    expect(Number.isNaN(Date.parse(saved!.since))).toBe(false);
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    expect(heldLockPaths()).not.toContain(join(dir, LOCK_FILE));
  });

  it('is refused to a second holder in the same process too (two in-process runs of one folder)', () => {
    const dir = freshDir();
    const a = acquireRunFolderLock(dir);
    expect(() => acquireRunFolderLock(dir)).toThrow(`${dir} is in use by another run (pid ${process.pid} on`);
    a.release();
    // given back: the next holder gets it
    acquireRunFolderLock(dir).release();
  });

  it('a run folder keeps the lock it holds when asked again (a sweep takes a ride folder back)', () => {
    const dir = freshDir();
    const f = RunFolder.create(dir, DEFAULT_CONFIG);
    expect(() => f.lock()).not.toThrow();
    f.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('refuses while a live owner holds it, with one line naming the folder, pid, host and start time', () => {
    const dir = freshDir();
    // a live process on this host (this one) under another acquisition's token: another owner to this code
    const live = owner({ pid: process.pid, host: hostname() });
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(live));
    const attempt = (): unknown => acquireRunFolderLock(dir);
    expect(attempt).toThrow(RunFolderError);
    expect(attempt).toThrow(
      `${dir} is in use by another run (pid ${process.pid} on ${hostname()}, since 2026-12-06T01:02:03.000Z): wait for it to finish or stop it`,
    );
    // the owner's lock is untouched
    expect(parseLockOwner(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toEqual(live);
  });

  it('takes over a stale lock (this host, its pid gone) and says so in one line', () => {
    const dir = freshDir();
    const pid = deadPid();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(owner({ pid, host: hostname() })));
    const notes: string[] = [];
    const lock = acquireRunFolderLock(dir, (t) => void notes.push(t));
    expect(notes).toEqual([
      `note: ${dir}: took over a stale lock (pid ${pid} on ${hostname()}, since 2026-12-06T01:02:03.000Z, is gone)\n`,
    ]);
    expect(parseLockOwner(readFileSync(join(dir, LOCK_FILE), 'utf8'))?.pid).toBe(process.pid);
    lock.release();
  });

  it('never judges a lock from another host stale, and says which file to delete', () => {
    const dir = freshDir();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(owner({ pid: deadPid() })));
    expect(() => acquireRunFolderLock(dir)).toThrow(
      `it runs on another host; if it is gone, delete ${join(dir, LOCK_FILE)}`,
    );
  });

  it('is not removed by a release once another process has taken it over', () => {
    const dir = freshDir();
    const lock = acquireRunFolderLock(dir);
    const other = JSON.stringify(owner({ pid: process.pid, host: hostname(), token: 'another' }));
    writeFileSync(join(dir, LOCK_FILE), other);
    lock.release();
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(other);
  });
});

describe('staleness and the refusal text', () => {
  it('a lock is stale only on this host with its pid gone', () => {
    const alive = (pid: number): boolean => pid === 1;
    expect(isStale(owner({ pid: 7, host: 'h' }), 'h', alive)).toBe(true);
    expect(isStale(owner({ pid: 1, host: 'h' }), 'h', alive)).toBe(false);
    expect(isStale(owner({ pid: 7, host: 'other' }), 'h', alive)).toBe(false);
  });

  it('names the folder and the owner, and what to do', () => {
    expect(lockRefusal('runs/a', owner({}), 'lab-host')).toBe(
      'runs/a is in use by another run (pid 4242 on lab-host, since 2026-12-06T01:02:03.000Z): wait for it to finish or stop it',
    );
  });

  it('reads no owner from a torn or foreign lock file', () => {
    expect(parseLockOwner('')).toBeNull();
    expect(parseLockOwner('{"pid": 1')).toBeNull();
    expect(parseLockOwner('{"pid": "1", "host": "h", "since": "s", "token": "t"}')).toBeNull();
  });
});

describe('run folders take the lock', () => {
  it('a new run folder is refused while another live process holds its lock, before anything is written', () => {
    const dir = freshDir();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(owner({ pid: process.pid, host: hostname() })));
    expect(() => RunFolder.create(dir, DEFAULT_CONFIG)).toThrow('is in use by another run');
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('a new run folder holds its lock until released; the lock file does not make the folder "not empty"', () => {
    const dir = freshDir();
    const f = RunFolder.create(dir, DEFAULT_CONFIG);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
    f.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });
});
