// The exclusive lock of a run folder (Node): one process at a time writes a run folder's logs and checkpoints, so two
// `--resume DIR` (or a sweep lane and a resume) can never interleave metrics.jsonl.
//
// The lock is the file `.lock` in the run folder, created atomically (open with 'wx', O_CREAT|O_EXCL): whoever
// creates it owns the folder. It holds its owner as JSON {pid, host, since (ISO time), token}. A lock whose owner is
// on this host and whose pid is no longer alive (a SIGKILL, a power cut) is stale: it is renamed away (only one
// process can win that rename), checked to be the lock judged stale, and the folder is taken over with a one-line
// note. A live owner, or an owner on another host (whose pid cannot be checked from here), refuses the second
// process with one line naming the folder and the owner: RunFolderError, exit 2.
//
// One holder per folder, within a process too (two in-process resumes of one folder are refused alike).
// Release: explicitly (release()), and for every lock still held when the process exits (normal exit, an error
// reported by cliMain.ts, process.exit after a second Ctrl-C/SIGTERM in interrupt.ts): a process 'exit' handler
// removes them synchronously. A lock file is removed only while it still holds this process's token.
import { linkSync, openSync, readFileSync, renameSync, rmSync, writeSync, closeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { FileSystemError, RunFolderError } from '../src/core/errors';

/** The lock file's name inside a run folder (hidden: not part of the run's logs). */
export const LOCK_FILE = '.lock';

/** Who holds a run folder. */
export interface LockOwner {
  pid: number;
  host: string;
  /** ISO time the lock was taken */
  since: string;
  /** random per acquisition: tells this process's lock from a later one of a reused pid */
  token: string;
}

/** The owner recorded in a lock file's text, or null when the text is not a lock (torn write, hand-edited). */
export function parseLockOwner(text: string): LockOwner | null {
  try {
    const o = JSON.parse(text) as Partial<LockOwner> | null;
    if (
      o !== null &&
      typeof o === 'object' &&
      Number.isSafeInteger(o.pid) &&
      typeof o.host === 'string' &&
      typeof o.since === 'string' &&
      typeof o.token === 'string'
    )
      return o as LockOwner;
  } catch {
    // not JSON
  }
  return null;
}

/** True when process `pid` exists on this host (EPERM: it exists but belongs to another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
}

/** Is this owner's lock stale: on this host, and its process gone. An owner on another host is never judged stale. */
export function isStale(owner: LockOwner, here = hostname(), alive: (pid: number) => boolean = pidAlive): boolean {
  return owner.host === here && !alive(owner.pid);
}

/** The one-line refusal of a folder another process holds. */
export function lockRefusal(dir: string, owner: LockOwner, here = hostname()): string {
  const how =
    owner.host === here
      ? 'wait for it to finish or stop it'
      : `it runs on another host; if it is gone, delete ${join(dir, LOCK_FILE)}`;
  return `${dir} is in use by another run (pid ${owner.pid} on ${owner.host}, since ${owner.since}): ${how}`;
}

/** The held locks of this process, by lock file path, released on exit. */
const held = new Map<string, LockOwner>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const path of [...held.keys()]) releaseLockFile(path);
  });
}

/** Remove the lock file at `path` if it still holds this process's lock (never another process's). */
function releaseLockFile(path: string): void {
  const mine = held.get(path);
  held.delete(path);
  if (!mine) return;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return; // already gone (the folder was removed)
  }
  if (parseLockOwner(text)?.token === mine.token) rmSync(path, { force: true });
}

function readOwner(path: string): { text: string; owner: LockOwner | null } | null {
  try {
    const text = readFileSync(path, 'utf8');
    return { text, owner: parseLockOwner(text) };
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return null;
    throw FileSystemError.from(e, path, 'reading the run folder lock');
  }
}

/** A held run folder lock. */
export interface RunFolderLock {
  readonly path: string;
  readonly owner: LockOwner;
  release(): void;
  /** still this lock's: its file holds its token (a removed folder, a takeover by another process: false) */
  holds(): boolean;
}

/**
 * Take the exclusive lock of run folder `dir` (it must exist). A stale lock is taken over and `note` gets one line
 * saying so; a live owner's lock, this process's own included (two runs of one folder in one process), throws
 * RunFolderError (lockRefusal's text). Whoever holds a lock keeps it as long as it likes (RunFolder.lock).
 */
export function acquireRunFolderLock(
  dir: string,
  note: (text: string) => void = (t) => void process.stderr.write(t),
): RunFolderLock {
  const path = resolve(dir, LOCK_FILE);
  const lock = (owner: LockOwner): RunFolderLock => ({
    path,
    owner,
    release: () => {
      if (held.get(path)?.token === owner.token) releaseLockFile(path);
    },
    holds: () => held.get(path)?.token === owner.token && readOwner(path)?.owner?.token === owner.token,
  });
  // this process already holds it for another run (two in-process resumes of one folder): refused as well
  const mine = held.get(path);
  if (mine && readOwner(path)?.owner?.token === mine.token) throw new RunFolderError(lockRefusal(dir, mine));
  held.delete(path);
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  // a few rounds: each lost race (another process took over the same stale lock first) re-reads the new owner
  for (let round = 0; round < 5; round++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (e) {
      if ((e as { code?: string }).code !== 'EEXIST') throw FileSystemError.from(e, path, 'locking the run folder');
      const found = readOwner(path);
      if (found === null) continue; // released meanwhile: try again
      if (found.owner === null) {
        // a torn lock (the owner died between create and write): stale only if no live writer is still filling it
        if (round < 2) continue;
        throw new RunFolderError(
          `${dir}: its lock ${path} is unreadable ("${found.text.slice(0, 40)}"): if no other process uses the folder, delete the lock`,
        );
      }
      if (!isStale(found.owner)) throw new RunFolderError(lockRefusal(dir, found.owner));
      takeOverStale(path, found.text);
      note(
        `note: ${dir}: took over a stale lock (pid ${found.owner.pid} on ${found.owner.host}, since ${found.owner.since}, is gone)\n`,
      );
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(owner) + '\n');
    } catch (e) {
      closeSync(fd);
      rmSync(path, { force: true });
      throw FileSystemError.from(e, path, 'locking the run folder');
    }
    closeSync(fd);
    installExitHook();
    held.set(path, owner);
    return lock(owner);
  }
  const found = readOwner(path)?.owner;
  throw new RunFolderError(
    found ? lockRefusal(dir, found) : `${dir}: could not take its lock ${path}: other processes keep taking it`,
  );
}

/**
 * Move the stale lock at `path` (whose text was `staleText`) out of the way. Only one process wins the rename; if what
 * it moved is not the stale lock (another process took over in between and wrote its own), that lock is put back.
 */
function takeOverStale(path: string, staleText: string): void {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return; // another process moved it first
    throw FileSystemError.from(e, path, 'taking over a stale run folder lock');
  }
  let moved = '';
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    moved = staleText;
  }
  if (moved !== staleText) {
    try {
      linkSync(aside, path); // put the live lock back (fails if yet another lock exists: then that one stands)
    } catch {
      // another lock is in place
    }
  }
  rmSync(aside, { force: true });
}

/** The locks this process holds (for tests). */
export function heldLockPaths(): string[] {
  return [...held.keys()];
}
