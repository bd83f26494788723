import { describe, expect, it } from 'vitest';
import {
  BackendError,
  CheckpointError,
  ConfigError,
  FileSystemError,
  fromErrorPayload,
  LogError,
  PresetError,
  RunFolderError,
  toErrorPayload,
  UserError,
  userErrorLine,
  withFsErrors,
} from '../../src/core/errors';
import { ConfigError as ConfigErrorFromConfig } from '../../src/core/experiment/config';

describe('user errors', () => {
  it('every class is a UserError of its own kind and name', () => {
    const cases: [UserError, string, string][] = [
      [new ConfigError(['a: bad'], '--set'), 'config', 'ConfigError'],
      [new PresetError('p'), 'preset', 'PresetError'],
      [new LogError('l'), 'log', 'LogError'],
      [new CheckpointError('c'), 'checkpoint', 'CheckpointError'],
      [new RunFolderError('r'), 'run-folder', 'RunFolderError'],
      [new BackendError('b'), 'backend', 'BackendError'],
      [new FileSystemError('/x', 'EROFS', 'f'), 'file-system', 'FileSystemError'],
      [new UserError('u'), 'usage', 'UserError'],
    ];
    for (const [e, kind, name] of cases) {
      expect(e).toBeInstanceOf(UserError);
      expect(e).toBeInstanceOf(Error);
      expect([e.kind, e.name]).toEqual([kind, name]);
    }
    expect(ConfigErrorFromConfig).toBe(ConfigError);
    expect(new ConfigError(['a: bad', 'b: worse'], '--set').message).toBe('--set: a: bad; b: worse');
  });

  it('a Node file-system error becomes a FileSystemError naming the path, the code and what to do', () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const e = FileSystemError.from(enospc, '/runs/a/metrics.jsonl', 'appending to the run log') as FileSystemError;
    expect(e).toBeInstanceOf(FileSystemError);
    expect(e.message).toBe(
      '/runs/a/metrics.jsonl: no space left on the device (ENOSPC) while appending to the run log: free some space and try again',
    );
    expect([e.path, e.code]).toEqual(['/runs/a/metrics.jsonl', 'ENOSPC']);
    // not a file-system error: unchanged (a defect stays a defect)
    const bug = new TypeError('x is undefined');
    expect(FileSystemError.from(bug, '/p', 'reading')).toBe(bug);
    expect(() =>
      withFsErrors('/ro/run', 'creating the folder', () => {
        throw Object.assign(new Error('EROFS'), { code: 'EROFS' });
      }),
    ).toThrow('/ro/run: the file system is read-only (EROFS) while creating the folder: choose a writable location');
  });

  it('one line for the terminal: newlines folded, control bytes escaped; a defect has none', () => {
    expect(userErrorLine(new CheckpointError('a\nb\r\n  c \u001b[2J\u0007'))).toBe('a; b; c \\x1b[2J\\x07');
    expect(userErrorLine(new Error('defect'))).toBeNull();
    expect(userErrorLine('string')).toBeNull();
  });

  it('crosses a worker boundary as a plain payload and comes back as a user error of the same kind', () => {
    const p = toErrorPayload(new CheckpointError('checkpoint x: damaged'));
    expect(p).toEqual({ name: 'CheckpointError', message: 'checkpoint x: damaged', kind: 'checkpoint' });
    expect(structuredClone(p)).toEqual(p);
    const back = fromErrorPayload(p) as UserError;
    expect(back).toBeInstanceOf(UserError);
    expect([back.kind, back.name, back.message]).toEqual(['checkpoint', 'CheckpointError', 'checkpoint x: damaged']);
    const defect = toErrorPayload(new RangeError('boom'));
    expect(defect.kind).toBeUndefined();
    expect(defect.stack).toContain('boom');
    expect(fromErrorPayload(defect)).not.toBeInstanceOf(UserError);
    expect(toErrorPayload(42)).toEqual({ name: 'Error', message: '42' });
  });
});
