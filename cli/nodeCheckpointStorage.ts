// Checkpoint storage on a Node file system (CLI and tests only: imports node:fs, never bundled for the browser).
// Atomicity: a checkpoint is written into a hidden temp folder, fsynced, then renamed to its final name (a rename is
// atomic on one file system; a checkpoint folder is never overwritten in place — an existing one is first renamed
// away). `LATEST` (the name of the newest complete checkpoint) is replaced with temp file + rename too. A crash at
// any point leaves the previous checkpoint and LATEST intact. File-system failures (full or read-only disk, a file
// where a folder should be) surface as FileSystemError naming the path; a bad name in LATEST as CheckpointError.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError, FileSystemError, withFsErrorsAsync } from '../src/core/errors';
import type { CheckpointFiles, CheckpointStorage } from '../src/engine/trainer/checkpoint';

const NAME = /^[A-Za-z0-9_.-]+$/;
/** larger files are not checkpoint files (a 1024-wide 24-layer model with Adam is ~1.2 GB) */
const MAX_FILE_BYTES = 2 ** 31;

export class NodeCheckpointStorage implements CheckpointStorage {
  constructor(readonly root: string) {}

  private check(name: string): void {
    if (!NAME.test(name) || name.startsWith('.') || name.length > 100)
      throw new CheckpointError(
        `checkpoint name "${name.slice(0, 60)}" in ${this.root} must be a plain slug such as student-000005`,
      );
  }

  /** SHA-256 (hex) with node:crypto: the same digest WebCrypto gives in a browser. */
  async sha256(bytes: Uint8Array): Promise<string> {
    return createHash('sha256').update(bytes).digest('hex');
  }

  async write(name: string, files: CheckpointFiles): Promise<void> {
    this.check(name);
    await withFsErrorsAsync(join(this.root, name), 'writing a checkpoint', () => this.writeFiles(name, files));
  }

  private async writeFiles(name: string, files: CheckpointFiles): Promise<void> {
    await fs.mkdir(this.root, { recursive: true });
    const nonce = `${process.pid}-${Date.now()}-${Math.floor(Math.random() * 1e9)}`;
    const tmp = join(this.root, `.tmp-${name}-${nonce}`);
    try {
      await fs.mkdir(tmp);
      for (const [file, bytes] of files) {
        // a failure names the file as it would be in the checkpoint (EFBIG, ENOSPC: which one did not fit)
        await withFsErrorsAsync(join(this.root, name, file), 'writing a checkpoint', async () => {
          const fh = await fs.open(join(tmp, file), 'w');
          try {
            await fh.writeFile(bytes);
            await fh.sync();
          } finally {
            await fh.close();
          }
        });
      }
      await this.swapIn(tmp, join(this.root, name), `.old-${name}-${nonce}`);
    } catch (e) {
      // a full disk mid-write: leave no half-written temp folder behind (the previous checkpoint is intact)
      await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
      throw e;
    }
    const tmpLatest = join(this.root, `.LATEST-${nonce}`);
    try {
      await fs.writeFile(tmpLatest, name);
      await fs.rename(tmpLatest, join(this.root, 'LATEST'));
    } catch (e) {
      await fs.rm(tmpLatest, { force: true }).catch(() => undefined);
      throw e;
    }
  }

  /** Put the complete temp folder at `final`; an existing checkpoint of that name is moved away first. */
  private async swapIn(tmp: string, final: string, oldName: string): Promise<void> {
    let old: string | null = null;
    try {
      await fs.access(final);
      old = join(this.root, oldName);
      await fs.rename(final, old);
    } catch {
      old = null;
    }
    await fs.rename(tmp, final);
    if (old) await fs.rm(old, { recursive: true, force: true });
  }

  async read(name: string): Promise<CheckpointFiles | null> {
    this.check(name);
    const dir = join(this.root, name);
    let entries: string[];
    try {
      entries = await fs.readdir(dir);
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return null;
      throw FileSystemError.from(e, dir, 'reading a checkpoint');
    }
    const files: CheckpointFiles = new Map();
    for (const e of entries) {
      if (e.startsWith('.')) continue; // hidden files (.DS_Store, editors' backups) are not part of a checkpoint
      const path = join(dir, e);
      const st = await withFsErrorsAsync(path, 'reading a checkpoint', () => fs.stat(path));
      if (!st.isFile()) throw new CheckpointError(`${path}: expected a file in the checkpoint folder`);
      if (st.size > MAX_FILE_BYTES)
        throw new CheckpointError(`${path}: ${st.size} bytes, more than a checkpoint file can hold`);
      files.set(e, new Uint8Array(await withFsErrorsAsync(path, 'reading a checkpoint', () => fs.readFile(path))));
    }
    return files;
  }

  async latest(): Promise<string | null> {
    const path = join(this.root, 'LATEST');
    let text: string;
    try {
      text = await fs.readFile(path, 'utf8');
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return null;
      throw FileSystemError.from(e, path, 'reading the latest checkpoint name');
    }
    const name = text.trim();
    if (!name) return null;
    this.check(name);
    return name;
  }

  async list(): Promise<string[]> {
    try {
      const entries = await fs.readdir(this.root, { withFileTypes: true });
      return entries
        .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
        .map((e) => e.name)
        .sort();
    } catch {
      return [];
    }
  }

  /**
   * What a killed writer left behind (SIGKILL or a power cut mid-write; call only while holding the run folder's
   * lock): `.tmp-*` folders and `.LATEST-*` files are removed; an `.old-NAME-*` folder (moved aside just before the
   * new NAME was renamed in) is put back as NAME when NAME is missing, else removed. Returns the names it handled.
   */
  async removeLeftovers(): Promise<string[]> {
    let entries: string[];
    try {
      entries = await fs.readdir(this.root);
    } catch {
      return [];
    }
    const done: string[] = [];
    for (const e of entries) {
      const path = join(this.root, e);
      const old = /^\.old-(.+)-\d+-\d+-\d+$/.exec(e);
      if (old && NAME.test(old[1]!)) {
        const final = join(this.root, old[1]!);
        const present = await fs.access(final).then(
          () => true,
          () => false,
        );
        if (!present) {
          await withFsErrorsAsync(final, 'restoring a checkpoint', () => fs.rename(path, final));
          done.push(e);
          continue;
        }
      } else if (!e.startsWith('.tmp-') && !e.startsWith('.LATEST-')) continue;
      await withFsErrorsAsync(path, 'removing a leftover of an interrupted checkpoint write', () =>
        fs.rm(path, { recursive: true, force: true }),
      );
      done.push(e);
    }
    return done;
  }

  async remove(name: string): Promise<void> {
    this.check(name);
    const dir = join(this.root, name);
    await withFsErrorsAsync(dir, 'removing an old checkpoint', () => fs.rm(dir, { recursive: true, force: true }));
  }
}
