// `npm run replay -- <file> [file…] --teacher-performance <S_T> [options]`: replay the RetireOPD retirement gate
// over a real training log and print, as JSON lines, every evaluated window and then a summary.
// This file only reads files, parses arguments and prints; the work is in src/core/replay (pure).
// Exit codes: 0 done (warnings, if any, on stderr as `replay: warning: …`); 2 bad arguments or bad input (one line
// on stderr, `FILE:LINE: what is wrong`, nothing on stdout); 1 an internal error (a defect: the stack follows).
// Log files are streamed (read in chunks, parsed line by line where the format allows), so memory stays bounded.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FileSystemError, userErrorLine } from '../src/core/errors';
import { GATE_DEFAULTS, GateConfigError, type GateConfigField } from '../src/core/gateConfig';
import {
  REPLAY_SCHEDULES,
  type ReplaySchedule,
  replayGateStream,
  replayTextBlocks,
} from '../src/core/replay/gateReplay';
import { LOG_FORMATS, type LogFormat, type LogStream, ReplayInputError } from '../src/core/replay/logRecords';
import { printable } from '../src/core/replay/quoteInput';

const USAGE = `usage: npm run replay -- <file> [more files…] --teacher-performance <S_T> [options]

Replays the RetireOPD retirement gate (docs/METHODS.md §4) over a training log and prints JSON lines:
one {"type":"evaluation",…} per evaluated window, then one {"type":"summary",…}.

  --teacher-performance S_T   teacher's validation score on the same split and metric (required, > 0)
  --window W                  steps per window (default ${GATE_DEFAULTS.windowSize})
  --alignment-threshold δ     retire when ρ ≤ δ (default ${GATE_DEFAULTS.alignmentThreshold})
  --competence-threshold γ    retire when η ≥ γ (default ${GATE_DEFAULTS.competenceThreshold})
  --epsilon ε                 ρ needs |previous window mean| > ε (default ${GATE_DEFAULTS.denominatorEpsilon})
  --schedule NAME             ${REPLAY_SCHEDULES.join(' | ')} (default adaptive)
  --gap-key KEY               the gap g = token-mean(log πT − log π_old) (default by format)
  --val-key KEY               the validation score (default by format)
  --format F                  jsonl | verl | csv | trl (default: detected per file)

Formats: jsonl {"step","gap","val"} or the lab's metrics.jsonl (opd/teacher_student_gap_mean, val/success_rate);
verl file logger {"step","data":{…}} (skillsd/teacher_student_gap_mean, val/success_rate); CSV with a step column
(several files are joined on the step; a TensorBoard export "Wall time,Step,Value" is named after its file, e.g.
run-x-tag-val_success_rate.csv); TRL trainer_state.json (log_history). One format per file.
Keys match when equal after Unicode NFC, "/" ≡ "_" and lower case; nothing else is equated.`;

const FLAG_OF_FIELD: Record<GateConfigField, string> = {
  lambdaOpd: '--opd-coef',
  teacherPerformance: '--teacher-performance',
  windowSize: '--window',
  alignmentThreshold: '--alignment-threshold',
  competenceThreshold: '--competence-threshold',
  denominatorEpsilon: '--epsilon',
};

class UsageError extends Error {}

/** What main needs from the outside world (the fuzz test passes its own, in memory). */
export interface ReplayIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** A log file's text, in chunks; rejects (on open or while reading) with a Node file-system error. */
  readLog(path: string): AsyncIterable<string>;
}

/** Chunk size of file reads: large enough to be fast, small enough that memory holds only a few. */
const READ_CHUNK_BYTES = 1024 * 1024;

async function* readFileChunks(path: string): AsyncIterable<string> {
  const info = await stat(path);
  if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  // setEncoding('utf8') decodes across chunk boundaries; invalid bytes become U+FFFD (refused or escaped later).
  yield* createReadStream(path, { encoding: 'utf8', highWaterMark: READ_CHUNK_BYTES });
}

export const nodeIo: ReplayIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readLog: readFileChunks,
};

function parseNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  // An integer a number cannot hold exactly would be refused (or used) as its rounded neighbour: quote it as typed.
  if (/^\s*[+-]?\d+\s*$/.test(text) && !Number.isSafeInteger(Number(text))) {
    throw new UsageError(
      `${flag}: ${printable(text.trim(), 40)} is beyond 9007199254740991, the largest exact integer`,
    );
  }
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (Number.isNaN(value) && text.trim().toLowerCase() !== 'nan') {
    throw new UsageError(`${flag}: expected a number, got "${text}"`);
  }
  return value;
}

const NUMBER_OPTIONS = [
  '--teacher-performance',
  '--window',
  '--alignment-threshold',
  '--competence-threshold',
  '--epsilon',
];

/** parseArgs refuses `--alignment-threshold -0.05` (a value starting with '-'): join such pairs with '='. */
function joinNegativeNumbers(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    if (NUMBER_OPTIONS.includes(arg) && next !== undefined && /^-(\d|\.\d|Infinity|inf)/i.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

/** The command: argv without the node/script names; returns the exit code. Never throws. */
export async function main(argv: string[], io: ReplayIo = nodeIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    // Not a user error: a defect. Say so, with the stack, and exit 1.
    io.stderr(
      `replay: internal error (a bug, please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

async function run(argv: string[], io: ReplayIo): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: joinNegativeNumbers(argv),
      allowPositionals: true,
      strict: true,
      options: {
        'teacher-performance': { type: 'string' },
        window: { type: 'string' },
        'alignment-threshold': { type: 'string' },
        'competence-threshold': { type: 'string' },
        epsilon: { type: 'string' },
        schedule: { type: 'string' },
        'gap-key': { type: 'string' },
        'val-key': { type: 'string' },
        format: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0]?.split('. To specify')[0] ?? '';
    io.stderr(`replay: ${printable(message, 200)} (see npm run replay -- --help)\n`);
    return 2;
  }
  const { values, positionals } = args;
  if (values.help === true) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  try {
    if (positionals.length === 0) throw new UsageError('no log file given');
    if (values['teacher-performance'] === undefined) throw new UsageError('--teacher-performance is required');
    const schedule = values.schedule ?? 'adaptive';
    if (!(REPLAY_SCHEDULES as readonly string[]).includes(schedule)) {
      throw new UsageError(`--schedule: expected one of ${REPLAY_SCHEDULES.join(', ')}, got "${schedule}"`);
    }
    const format = values.format;
    if (format !== undefined && !(LOG_FORMATS as readonly string[]).includes(format)) {
      throw new UsageError(`--format: expected one of ${LOG_FORMATS.join(', ')}, got "${format}"`);
    }
    if (values['gap-key'] !== undefined && values['gap-key'] === values['val-key']) {
      throw new UsageError(`--gap-key and --val-key name the same metric "${values['gap-key']}"`);
    }
    const gate = {
      teacherPerformance: parseNumber('--teacher-performance', values['teacher-performance']) ?? Number.NaN,
      windowSize: parseNumber('--window', values.window),
      alignmentThreshold: parseNumber('--alignment-threshold', values['alignment-threshold']),
      competenceThreshold: parseNumber('--competence-threshold', values['competence-threshold']),
      denominatorEpsilon: parseNumber('--epsilon', values.epsilon),
    };
    const definedGate = Object.fromEntries(Object.entries(gate).filter(([, v]) => v !== undefined)) as typeof gate;
    const sources: LogStream[] = positionals.map((name) => ({ name, chunks: fsErrorsNamed(name, io.readLog(name)) }));
    const result = await replayGateStream(sources, {
      gate: definedGate,
      schedule: schedule as ReplaySchedule,
      format: format as LogFormat | undefined,
      ...(values['gap-key'] === undefined ? {} : { gapKey: values['gap-key'] }),
      ...(values['val-key'] === undefined ? {} : { valKey: values['val-key'] }),
    });
    for (const warning of result.summary.warnings ?? []) io.stderr(`replay: warning: ${warning}\n`);
    for (const block of replayTextBlocks(result)) io.stdout(block);
    return 0;
  } catch (error) {
    const line = describeError(error);
    if (line === null) throw error;
    io.stderr(`${line}\n`);
    return 2;
  }
}

/** A file's chunks, with a Node file-system error (missing file, a folder, no permission) as a FileSystemError. */
async function* fsErrorsNamed(path: string, chunks: AsyncIterable<string>): AsyncIterable<string> {
  try {
    yield* chunks;
  } catch (error) {
    const named = FileSystemError.from(error, printable(path), 'reading the log');
    const code = (error as { code?: unknown } | null)?.code;
    if (named === error && typeof code === 'string') {
      // A file-system or argument error without a plain-words meaning (a NUL in the path, EAGAIN, …).
      throw new ReplayInputError(path, 0, `cannot be read (${printable(code, 40)})`);
    }
    throw named;
  }
}

/** The one line for a user error, or null for a defect. */
function describeError(error: unknown): string | null {
  if (error instanceof GateConfigError) {
    // Name the flag the user typed (the gate's field names are internal).
    const flag = FLAG_OF_FIELD[error.field as GateConfigField];
    return flag === undefined ? `replay: ${error.message}` : `replay: ${flag} ${error.requirement}`;
  }
  if (error instanceof UsageError) return `replay: ${printable(error.message, 300)}`;
  return userErrorLine(error);
}

const invokedAsScript = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedAsScript) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
