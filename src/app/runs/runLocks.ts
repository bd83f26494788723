// One tab owns a run: a Web Lock per run id (navigator.locks), held by the tab whose worker trains it for as long as
// the run goes; the browser frees it when that tab closes or crashes. Other tabs of this origin ask which locks are
// held to tell a run "running in another tab" from one a closed tab left "interrupted", and offer to continue it only
// once its lock is free. A queue takes a lock of its own the same way (one tab runs it).
// MemoryLocks is the stand-in where Web Locks are missing (Node tests; a browser without them: one tab assumed).

/** The lock of a stored run, and of a stored queue. */
export const runLockName = (runId: string) => `retirelab-run:${runId}`;
export const queueLockName = (queueId: string) => `retirelab-queue:${queueId}`;

export interface RunLocks {
  /** Take `name` unless some tab holds it: a release function, or null when it is held (by this tab or another). */
  tryAcquire(name: string): Promise<(() => void) | null>;
  /** The names other tabs hold now (this page's own are left out). */
  heldElsewhere(): Promise<Set<string>>;
  /** Resolves once nobody holds `name` (it may be taken again at once). */
  whenFree(name: string): Promise<void>;
}

/** Who holds which lock, across the MemoryLocks sharing it (a "browser" whose pages are those instances). */
export class LockRegistry {
  readonly held = new Map<string, { owner: MemoryLocks; waiting: Array<() => void> }>();
}

/** Locks without Web Locks (Node tests; a browser without them: one tab assumed). One instance is one page. */
export class MemoryLocks implements RunLocks {
  constructor(private readonly registry: LockRegistry = new LockRegistry()) {}
  async tryAcquire(name: string): Promise<(() => void) | null> {
    if (this.registry.held.has(name)) return null;
    const entry = { owner: this, waiting: [] as Array<() => void> };
    this.registry.held.set(name, entry);
    return () => {
      if (this.registry.held.get(name) !== entry) return;
      this.registry.held.delete(name);
      for (const w of entry.waiting) w();
    };
  }
  async heldElsewhere(): Promise<Set<string>> {
    return new Set([...this.registry.held].filter(([, e]) => e.owner !== this).map(([name]) => name));
  }
  whenFree(name: string): Promise<void> {
    const entry = this.registry.held.get(name);
    if (entry === undefined) return Promise.resolve();
    return new Promise((resolve) => entry.waiting.push(resolve));
  }
}

/** navigator.locks, with this page's own locks remembered so that heldElsewhere can leave them out. */
export class WebRunLocks implements RunLocks {
  private readonly mine = new Set<string>();
  constructor(private readonly locks: LockManager) {}

  tryAcquire(name: string): Promise<(() => void) | null> {
    return new Promise((resolve, reject) => {
      this.locks
        .request(name, { ifAvailable: true }, (lock) => {
          if (lock === null) {
            resolve(null);
            return undefined;
          }
          this.mine.add(name);
          // held until the returned promise settles: until release() (or the page goes away)
          return new Promise<void>((release) =>
            resolve(() => {
              this.mine.delete(name);
              release();
            }),
          );
        })
        .catch(reject);
    });
  }

  async heldElsewhere(): Promise<Set<string>> {
    const { held = [] } = await this.locks.query();
    return new Set(held.map((l) => l.name ?? '').filter((n) => n !== '' && !this.mine.has(n)));
  }

  async whenFree(name: string): Promise<void> {
    // a shared request is granted once the exclusive holder lets go; released at once
    await this.locks.request(name, { mode: 'shared' }, () => undefined);
  }
}

/** The page's locks: Web Locks where the browser has them. */
export function pageRunLocks(): RunLocks {
  return typeof navigator !== 'undefined' && navigator.locks ? new WebRunLocks(navigator.locks) : new MemoryLocks();
}
