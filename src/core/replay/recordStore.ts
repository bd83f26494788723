// The rows of every log file, kept compactly while the files stream past: only the columns the replay can use (the
// gap, validation and retire_opd candidates, matched as metricKey.ts normalises keys) are kept, in typed arrays, so
// memory grows by a few bytes per step, never by the size of a line. Which candidate becomes the gap or validation key is
// decided once every file has been read.
import { MAX_METRICS_PER_ROW, tooManyMetrics } from './logRecords';
import { normaliseMetricKey } from './metricKey';
import { printable } from './quoteInput';

type NumberArray = Float64Array | Uint32Array;

/** A growable typed array: Float64 for steps and values (exact up to 2^53), Uint32 for lines and row indices. */
class Growable<T extends NumberArray> {
  length = 0;
  constructor(
    private data: T,
    private readonly make: (size: number) => T,
  ) {}
  push(x: number): void {
    if (this.length === this.data.length) {
      const bigger = this.make(Math.ceil(this.data.length * 1.5)); // 1.5: less idle capacity than doubling
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = x;
  }
  at(i: number): number {
    return this.data[i] as number;
  }
  /** The filled part (a view, not a copy). */
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }
}
const floats = () => new Growable(new Float64Array(1024), (n) => new Float64Array(n));
const uints = () => new Growable(new Uint32Array(1024), (n) => new Uint32Array(n));

/** One kept metric: for each row that logged it, the row's index and the value (non-numbers set aside). */
export class Column {
  private readonly rows = uints();
  private readonly numbers = floats();
  /** Values that are not numbers (strings, booleans, null, objects), by entry index: rare, reported as errors. */
  private readonly others = new Map<number, unknown>();
  constructor(readonly key: string) {}
  push(row: number, value: unknown): void {
    if (typeof value !== 'number') this.others.set(this.rows.length, value);
    this.rows.push(row);
    this.numbers.push(typeof value === 'number' ? value : Number.NaN);
  }
  get length(): number {
    return this.rows.length;
  }
  /** Whether every value is a number (then rowsView/numbersView hold the whole column). */
  get allNumbers(): boolean {
    return this.others.size === 0;
  }
  rowsView(): Uint32Array {
    return this.rows.view();
  }
  numbersView(): Float64Array {
    return this.numbers.view();
  }
  row(entry: number): number {
    return this.rows.at(entry);
  }
  value(entry: number): unknown {
    const x = this.numbers.at(entry);
    return Number.isNaN(x) && this.others.has(entry) ? this.others.get(entry) : x;
  }
}

/** Distinct metric names listed in a "keys: …" message at most. */
const KEYS_LISTED = 12;
/** Distinct metric names remembered for that list and its count. */
const KEYS_REMEMBERED = 10_000;

export class RecordStore {
  readonly files: string[] = [];
  /** The row each file starts at (files are read one after the other). */
  private readonly fileStarts: number[] = [];
  private readonly steps = floats();
  private readonly lines = uints();
  private readonly columnsByKey = new Map<string, Column>();
  private readonly keysSeen = new Set<string>();
  private readonly interesting: ReadonlySet<string>;
  private readonly decided = new Map<string, 'keep' | 'trigger' | 'skipped' | 'drop'>();
  private readonly triggerKey: string;
  private readonly skippedKey: string;
  /** Steps at which the logged run had already retired its teacher (teacher_forward_skipped > 0: the per-step flag,
   *  or the running count older logs wrote under that name), in reading order. */
  private readonly skipped = floats();
  /** Whether any finite trigger step was logged, and the earliest step (then file) whose trigger is ≥ 0. */
  private triggerLogged = false;
  private firstTrigger: { step: number; value: number } | undefined;

  /**
   * `keys`: every metric name the replay may look for (matched by normaliseMetricKey); the retire_opd
   * trigger-step and skipped-teacher metrics are summarised as they stream instead of kept per row.
   */
  constructor(keys: Iterable<string>, triggerKey: string, skippedKey: string) {
    this.interesting = new Set([...keys].map(normaliseMetricKey));
    this.triggerKey = normaliseMetricKey(triggerKey);
    this.skippedKey = normaliseMetricKey(skippedKey);
  }

  get rowCount(): number {
    return this.steps.length;
  }

  /** Register a file; returns its index for add(). */
  addFile(name: string): number {
    this.files.push(name);
    this.fileStarts.push(this.steps.length);
    return this.files.length - 1;
  }

  /** A row of the file added last; `skip` names a key of `values` that is not a metric (the step itself). */
  add(line: number, step: number, values: Readonly<Record<string, unknown>>, skip?: string): void {
    const row = this.steps.length;
    this.steps.push(step);
    this.lines.push(line);
    // for…in rather than Object.keys: no array per row (parsed JSON has no enumerable inherited keys).
    let count = 0;
    for (const key in values) {
      if (key === skip) continue;
      if (++count > MAX_METRICS_PER_ROW) throw tooManyMetrics(this.files.at(-1) ?? '', line);
      const use = this.use(key);
      if (use === 'drop') continue;
      const value = values[key];
      if (use === 'trigger') {
        if (typeof value !== 'number' || !Number.isFinite(value)) continue;
        this.triggerLogged = true;
        // Within a file steps never go back, so a file's first trigger ≥ 0 is its earliest; across files the
        // earlier step wins, and on a tie the earlier file.
        if (value >= 0 && (this.firstTrigger === undefined || step < this.firstTrigger.step)) {
          this.firstTrigger = { step, value };
        }
        continue;
      }
      if (use === 'skipped') {
        if (typeof value === 'number' && value > 0) this.skipped.push(step);
        continue;
      }
      let column = this.columnsByKey.get(key);
      if (column === undefined) {
        column = new Column(key);
        this.columnsByKey.set(key, column);
      }
      column.push(row, value);
    }
  }

  private use(key: string): 'keep' | 'trigger' | 'skipped' | 'drop' {
    let use = this.decided.get(key);
    if (use === undefined) {
      const normal = normaliseMetricKey(key);
      use =
        normal === this.triggerKey
          ? 'trigger'
          : normal === this.skippedKey
            ? 'skipped'
            : this.interesting.has(normal)
              ? 'keep'
              : 'drop';
      // Remembered as shown in messages (escaped, cut), and cached only when short: a log cannot make this
      // store hold megabytes of key names.
      if (this.keysSeen.size < KEYS_REMEMBERED) this.keysSeen.add(printable(key, 40));
      if (key.length <= 256 && this.decided.size < KEYS_REMEMBERED) this.decided.set(key, use);
    }
    return use;
  }

  /** The logged run's own trigger step: the first ≥ 0, null if it never retired, undefined if not logged. */
  loggedTrigger(): number | null | undefined {
    if (!this.triggerLogged) return undefined;
    return this.firstTrigger?.value ?? null;
  }

  /** Distinct steps at which the logged run had retired its teacher, ascending. */
  skippedSteps(): Float64Array {
    const all = this.skipped.view().slice().sort();
    let n = 0;
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[n - 1]) all[n++] = all[i] as number;
    return all.subarray(0, n);
  }

  step(row: number): number {
    return this.steps.at(row);
  }
  line(row: number): number {
    return this.lines.at(row);
  }
  file(row: number): string {
    // The last file that starts at or before `row` (binary search over the starts).
    let lo = 0;
    let hi = this.fileStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.fileStarts[mid] as number) <= row) lo = mid;
      else hi = mid - 1;
    }
    return this.files[lo] as string;
  }

  /** The columns a key names: itself when some row logged it exactly, else those with the same normal form. */
  columnsFor(key: string): Column[] {
    const exact = this.columnsByKey.get(key);
    if (exact !== undefined) return [exact];
    const wanted = normaliseMetricKey(key);
    return [...this.columnsByKey.values()].filter((c) => normaliseMetricKey(c.key) === wanted);
  }

  /** The metric names seen, for messages: "a, b, …, (n keys)". */
  keysShown(): string {
    const keys = [...this.keysSeen];
    const more = this.keysSeen.size >= KEYS_REMEMBERED ? `${KEYS_REMEMBERED}+` : String(keys.length);
    return keys.slice(0, KEYS_LISTED).join(', ') + (keys.length > KEYS_LISTED ? `, … (${more} keys)` : '');
  }
}
