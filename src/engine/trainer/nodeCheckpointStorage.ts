// Checkpoint storage on a Node file system (CLI and tests only: imports node:fs, never bundled for the browser).
// Atomicity: a checkpoint is written into a hidden temp folder, fsynced, then renamed to its final name (a rename is
// atomic on one file system; a checkpoint folder is never overwritten in place — an existing one is first renamed
// away). `LATEST` (the name of the newest complete checkpoint) is replaced with temp file + rename too. A crash at
// any point leaves the previous checkpoint and LATEST intact.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { CheckpointFiles, CheckpointStorage } from './checkpoint';

const NAME = /^[A-Za-z0-9_.-]+$/;

export class NodeCheckpointStorage implements CheckpointStorage {
  constructor(readonly root: string) {}

  private check(name: string): void {
    if (!NAME.test(name) || name.startsWith('.')) throw new Error(`checkpoint name "${name}" must be a plain slug`);
  }

  async write(name: string, files: CheckpointFiles): Promise<void> {
    this.check(name);
    await fs.mkdir(this.root, { recursive: true });
    const nonce = `${process.pid}-${Date.now()}-${Math.floor(Math.random() * 1e9)}`;
    const tmp = join(this.root, `.tmp-${name}-${nonce}`);
    await fs.mkdir(tmp);
    for (const [file, bytes] of files) {
      const fh = await fs.open(join(tmp, file), 'w');
      try {
        await fh.writeFile(bytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
    const final = join(this.root, name);
    let old: string | null = null;
    try {
      await fs.access(final);
      old = join(this.root, `.old-${name}-${nonce}`);
      await fs.rename(final, old);
    } catch {
      old = null;
    }
    await fs.rename(tmp, final);
    if (old) await fs.rm(old, { recursive: true, force: true });
    const tmpLatest = join(this.root, `.LATEST-${nonce}`);
    await fs.writeFile(tmpLatest, name);
    await fs.rename(tmpLatest, join(this.root, 'LATEST'));
  }

  async read(name: string): Promise<CheckpointFiles | null> {
    this.check(name);
    const dir = join(this.root, name);
    let entries: string[];
    try {
      entries = await fs.readdir(dir);
    } catch {
      return null;
    }
    const files: CheckpointFiles = new Map();
    for (const e of entries) files.set(e, new Uint8Array(await fs.readFile(join(dir, e))));
    return files;
  }

  async latest(): Promise<string | null> {
    try {
      const name = (await fs.readFile(join(this.root, 'LATEST'), 'utf8')).trim();
      return name || null;
    } catch {
      return null;
    }
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

  async remove(name: string): Promise<void> {
    this.check(name);
    await fs.rm(join(this.root, name), { recursive: true, force: true });
  }
}
