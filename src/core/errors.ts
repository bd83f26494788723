// One error model for everything a user can act on. A UserError means "your input is wrong, here is which and what
// to do": the CLIs print its message as one line and exit 2; the browser worker posts toErrorPayload(e) and the page
// shows the message. Anything that is not a UserError is a defect (the CLIs print the stack, exit 1).
// Pure TypeScript: no Node or DOM imports (FileSystemError.from only reads the `code` of an error object).

/** What a user error is about; the CLI and the page may group or word messages by it. */
export type UserErrorKind =
  'usage' | 'config' | 'preset' | 'log' | 'checkpoint' | 'run-folder' | 'backend' | 'file-system';

/** An error the user can act on: the message names the file/flag/field and what was expected. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly kind: UserErrorKind = 'usage',
  ) {
    super(message);
    this.name = 'UserError';
  }
}

/**
 * A configuration error (config file, --set, sweep axes): `messages` name each offending key and what was expected;
 * `source` says where the config came from ("--set", "preset smoke", a file path).
 */
export class ConfigError extends UserError {
  constructor(
    readonly messages: string[],
    readonly source = 'config',
  ) {
    super(`${source}: ${messages.join('; ')}`, 'config');
    this.name = 'ConfigError';
  }
}

/** A preset that does not exist or whose file cannot be read. */
export class PresetError extends UserError {
  constructor(message: string) {
    super(message, 'preset');
    this.name = 'PresetError';
  }
}

/** A training log (replay input) that cannot be used. */
export class LogError extends UserError {
  constructor(message: string) {
    super(message, 'log');
    this.name = 'LogError';
  }
}

/** A checkpoint that is missing, damaged, or does not belong to this run. */
export class CheckpointError extends UserError {
  constructor(message: string) {
    super(message, 'checkpoint');
    this.name = 'CheckpointError';
  }
}

/** A run folder that cannot be used (holds another run, is not a run, is not a folder). */
export class RunFolderError extends UserError {
  constructor(message: string) {
    super(message, 'run-folder');
    this.name = 'RunFolderError';
  }
}

/** A compute backend that cannot start here. */
export class BackendError extends UserError {
  constructor(message: string) {
    super(message, 'backend');
    this.name = 'BackendError';
  }
}

/** What each file-system error code means, in words a user can act on. */
const FS_CODES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'the file is larger than this process may write (its file size limit, ulimit -f)',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'is a folder, expected a file',
  EEXIST: 'already exists',
  ENOENT: 'no such file or folder',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
  EIO: 'input/output error',
};

/** A file-system failure (read-only disk, full disk, a file where a folder should be…), naming the path. */
export class FileSystemError extends UserError {
  constructor(
    readonly path: string,
    readonly code: string,
    message: string,
  ) {
    super(message, 'file-system');
    this.name = 'FileSystemError';
  }

  /**
   * `e` as a FileSystemError when it is a Node file-system error with a known code (else `e` unchanged).
   * `doing` says what was being done ("writing the checkpoint"), `path` which file or folder.
   */
  static from(e: unknown, path: string, doing: string): unknown {
    if (e instanceof UserError) return e;
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || !(code in FS_CODES)) return e;
    const hint =
      code === 'ENOSPC' || code === 'EDQUOT'
        ? ': free some space and try again'
        : code === 'EFBIG'
          ? ': raise the limit (ulimit -f unlimited) and try again'
          : code === 'EROFS' || code === 'EACCES' || code === 'EPERM'
            ? ': choose a writable location'
            : '';
    return new FileSystemError(path, code, `${path}: ${FS_CODES[code]} (${code}) while ${doing}${hint}`);
  }
}

/** Run `f`; a Node file-system error it throws becomes a FileSystemError naming `path`. */
export function withFsErrors<T>(path: string, doing: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw FileSystemError.from(e, path, doing);
  }
}

/** The same, for async work. */
export async function withFsErrorsAsync<T>(path: string, doing: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw FileSystemError.from(e, path, doing);
  }
}

/** What crosses a worker boundary: structured-clone-safe, enough to rebuild the message and its class. */
export interface ErrorPayload {
  name: string;
  message: string;
  /** set for user errors only: absent means a defect (show it as an internal error) */
  kind?: UserErrorKind;
  /** defects only: the stack, for the console */
  stack?: string;
}

export function toErrorPayload(e: unknown): ErrorPayload {
  if (e instanceof UserError) return { name: e.name, message: e.message, kind: e.kind };
  if (e instanceof Error) return { name: e.name, message: e.message, ...(e.stack ? { stack: e.stack } : {}) };
  return { name: 'Error', message: String(e) };
}

/** Rebuild an error from a payload (on the page side): user errors come back as UserError of their kind. */
export function fromErrorPayload(p: ErrorPayload): Error {
  if (p.kind === undefined) {
    const e = new Error(p.message);
    e.name = p.name;
    if (p.stack) e.stack = p.stack;
    return e;
  }
  const e = new UserError(p.message, p.kind);
  e.name = p.name;
  return e;
}

/**
 * The user-facing one-line message of a user error, or null when `e` is a defect: newlines folded into "; ",
 * other control bytes (terminal escapes from a file or a flag) shown as \xNN instead of being echoed raw.
 */
export function userErrorLine(e: unknown): string | null {
  if (!(e instanceof UserError)) return null;
  return e.message
    .replace(/\s*[\r\n]+\s*/g, '; ')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
