// Reads back a held-out protocol page (docs/outcomes/protocol-*.md, written by `npm run protocol` through
// protocolReport.ts) into numbers: its environment and commit, each paired "RetireOPD − ARM" line with its per-seed
// differences, and the arm rows of its tables. The shipped result files (outcomeFiles.ts) are made from these, so
// every number the app shows about the held-out result is one the page printed. Values are in points (percent of
// test tasks), exactly as printed (one decimal). Pure text in, data out.

/** "RetireOPD − ARM: +3.6 ± 11.6 points over 10 seeds; … (per seed: 1000: +16.7, …)." at T = 1 (the primary). */
export interface PagePairedLine {
  /** the arm RetireOPD is compared with, e.g. "OPD throughout" */
  readonly arm: string;
  readonly mean: number;
  /** half-width of the 95 % t-interval by seed, as printed */
  readonly halfWidth: number;
  readonly n: number;
  /** RetireOPD − arm per seed, seeds ascending as printed */
  readonly perSeed: readonly { readonly seed: number; readonly difference: number }[];
}

/** One row of the Story or Ablations table: the arm's mean ± half-width over its seeds. */
export interface PageArmRow {
  readonly arm: string;
  readonly n: number;
  readonly mean: number;
  /** NaN when the page printed no interval */
  readonly halfWidth: number;
}

export interface OutcomePage {
  /** the environment named in the title, e.g. "shell" */
  readonly env: string;
  /** "e1ba75a" (the commit the page names) */
  readonly commit: string;
  readonly date: string;
  readonly paired: readonly PagePairedLine[];
  readonly rows: readonly PageArmRow[];
}

/** A page that is not a protocol page, or one whose lines no longer read as protocolReport.ts writes them. */
export class OutcomePageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutcomePageError';
  }
}

/** "+3.6", "−33.0" (the page's minus sign, U+2212), "-1" → number. */
export function pageNumber(text: string): number {
  const value = Number(text.trim().replace(/^−/, '-').replace(/^\+/, ''));
  if (!Number.isFinite(value) || text.trim() === '') throw new OutcomePageError(`"${text}" is not a number`);
  return value;
}

const TITLE = /^# Protocol: ([a-z]+),/;
const COMMIT = /^Commit ([0-9a-f]+), (\d{4}-\d{2}-\d{2})\./;
const PAIRED = /^RetireOPD − (.+?): ([+−-]?[\d.]+) ± ([\d.]+) points over (\d+) seeds;.*\(per seed: ([^)]*)\)\.$/;
const ROW = /^\| ([^|]+?) \| (\d+) \| ([\d.]+)(?: ± ([\d.]+))? \|/;

/** Parse one page; `file` names it in errors ("docs/outcomes/x.md:12: …"). */
export function parseOutcomePage(text: string, file: string): OutcomePage {
  const lines = text.split(/\r?\n/);
  let env: string | null = null;
  let commit: string | null = null;
  let date = '';
  const paired: PagePairedLine[] = [];
  const rows: PageArmRow[] = [];
  lines.forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    const title = TITLE.exec(line);
    if (title) env = title[1] as string;
    const c = COMMIT.exec(line);
    if (c && commit === null) {
      commit = c[1] as string;
      date = c[2] as string;
    }
    const p = PAIRED.exec(line);
    if (p && !(p[1] as string).includes(' at T = ')) {
      const perSeed = (p[5] as string).split(', ').map((entry) => {
        const [seed, difference] = entry.split(': ');
        if (seed === undefined || difference === undefined)
          throw new OutcomePageError(`${where}: per-seed entry "${entry}" is not "SEED: VALUE"`);
        return { seed: pageNumber(seed), difference: pageNumber(difference) };
      });
      const n = Number(p[4]);
      if (perSeed.length !== n)
        throw new OutcomePageError(`${where}: ${n} seeds announced, ${perSeed.length} listed per seed`);
      paired.push({ arm: p[1] as string, mean: pageNumber(p[2] as string), halfWidth: Number(p[3]), n, perSeed });
    }
    const r = ROW.exec(line);
    // the first table naming an arm is the primary one (T = 1); the T = 0.4 table repeats the Story's arms
    if (r && r[1] !== 'arm' && !rows.some((x) => x.arm === r[1])) {
      rows.push({
        arm: r[1] as string,
        n: Number(r[2]),
        mean: Number(r[3]),
        halfWidth: r[4] === undefined ? Number.NaN : Number(r[4]),
      });
    }
  });
  if (env === null) throw new OutcomePageError(`${file}:1: expected "# Protocol: ENV, …" as the title`);
  if (commit === null) throw new OutcomePageError(`${file}: no "Commit HASH, DATE." line`);
  return { env, commit, date, paired, rows };
}
