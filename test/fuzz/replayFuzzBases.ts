// The shipped replay fixtures the fuzz cases start from (test/fixtures/replay), what the replay must do with a case,
// and the small tools every format's breakers share: a seeded generator, rows of a text, line numbers.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/replay');
const read = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

/** What the replay must do with a case. */
export type Expectation =
  /** exit 0 and the same trigger step as the unmodified fixture */
  | { kind: 'reference' }
  /** exit 2, one line naming `file` (and `line` when given) */
  | { kind: 'refuse'; file: string; line?: number }
  /** either: refused as above, or accepted (the input may still be a valid log, e.g. truncated at a line end) */
  | { kind: 'either'; file: string };

export interface FuzzCase {
  readonly name: string;
  /** The fixture it derives from (its reference trigger step applies to 'reference' cases). */
  readonly base: BaseName;
  /** File name → content, in argument order. Strings are UTF-8 encoded; bytes are passed as they are. */
  readonly files: ReadonlyArray<readonly [string, string | Uint8Array]>;
  readonly args: readonly string[];
  readonly expect: Expectation;
}

/** The fixtures and the arguments their README gives. */
export const BASES = {
  verl: {
    files: [['verl_retire_opd.jsonl', read('verl_retire_opd.jsonl')]],
    args: ['--teacher-performance', '0.8'],
  },
  trl: { files: [['trainer_state.json', read('trl_trainer_state.json')]], args: ['--teacher-performance', '0.9'] },
  tensorboard: {
    files: [
      [
        'run-grpo_opd-tag-skillsd_teacher_student_gap_mean.csv',
        read('run-grpo_opd-tag-skillsd_teacher_student_gap_mean.csv'),
      ],
      ['run-grpo_opd-tag-val_success_rate.csv', read('run-grpo_opd-tag-val_success_rate.csv')],
    ],
    args: ['--teacher-performance', '0.75', '--window', '4', '--alignment-threshold', '0.05'],
  },
  simple: { files: [['simple.jsonl', read('simple.jsonl')]], args: ['--teacher-performance', '0.7', '--window', '3'] },
  lab: { files: [['metrics.jsonl', read('lab_metrics.jsonl')]], args: ['--teacher-performance', '0.6'] },
} as const satisfies Record<string, { files: ReadonlyArray<readonly [string, string]>; args: readonly string[] }>;
export type BaseName = keyof typeof BASES;

/** mulberry32: a small seeded generator, enough to pick mutations reproducibly. */
export function rngOf(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T,
  };
}

/** The seeded generator the breakers draw from. */
export type Rng = ReturnType<typeof rngOf>;

export const lines = (text: string) => text.replace(/\n$/, '').split('\n');
export const unlines = (rows: readonly string[]) => `${rows.join('\n')}\n`;
export const JSONL_BASES = ['verl', 'simple', 'lab'] as const;

/** Ways to break one JSON-lines log; each returns the text and what must happen, or null to skip. */
export type Breaker = (rows: string[], rng: Rng, file: string) => [string, Expectation] | null;

/** Index of the first row matching; throws when there is none (a generator defect, not a replay finding). */
export const lineOfStep = (rows: readonly string[], pred: (row: string) => boolean) => {
  const i = rows.findIndex(pred);
  if (i < 0) throw new Error('fuzz generator: no row to mutate');
  return i;
};
/** 1-based line of a character offset. */
export const lineAt = (text: string, offset: number) => text.slice(0, offset).split('\n').length;
