// `npm run replay -- <file> [file…] --teacher-performance <S_T> [options]`: replay the RetireOPD retirement gate
// over a real training log and print, as JSON lines, every evaluated window and then a summary.
// This file only reads files, parses arguments and prints; the work is in src/core/replay (pure).
// Exit codes: 0 done; 2 bad arguments or bad input (stderr `FILE:LINE: what is wrong`, nothing on stdout).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { GateConfigError, type GateConfigField } from '../src/core/gateConfig';
import { REPLAY_SCHEDULES, type ReplaySchedule, replayGate, replayLines } from '../src/core/replay/gateReplay';
import { LOG_FORMATS, type LogFormat, type LogSource, ReplayInputError } from '../src/core/replay/logRecords';

const USAGE = `usage: npm run replay -- <file> [more files…] --teacher-performance <S_T> [options]

Replays the RetireOPD retirement gate (METHODS.md §4) over a training log and prints JSON lines:
one {"type":"evaluation",…} per evaluated window, then one {"type":"summary",…}.

  --teacher-performance S_T   teacher's validation score on the same split and metric (required, > 0)
  --window W                  steps per window (default 5)
  --alignment-threshold δ     retire when P ≤ δ (default 0)
  --competence-threshold γ    retire when C ≥ γ (default 0.9)
  --epsilon ε                 P needs |previous window mean| > ε (default 1e-8)
  --schedule NAME             adaptive | alignment-only | competence-only (default adaptive)
  --gap-key KEY               the gap g = token-mean(log πT − log π_old) (default by format)
  --val-key KEY               the validation score (default by format)
  --format F                  jsonl | verl | csv | trl (default: detected per file)

Formats: jsonl {"step","gap","val"} or the lab's metrics.jsonl (opd/teacher_student_gap_mean, val/success_rate);
verl file logger {"step","data":{…}} (skillsd/teacher_student_gap_mean, val/success_rate); CSV with a step column
(several files are joined on the step; a TensorBoard export "Wall time,Step,Value" is named after its file, e.g.
run-x-tag-val_success_rate.csv); TRL trainer_state.json (log_history).`;

const FLAG_OF_FIELD: Record<GateConfigField, string> = {
  opd_coef: '--opd-coef',
  teacher_performance: '--teacher-performance',
  window_size: '--window',
  alignment_threshold: '--alignment-threshold',
  competence_threshold: '--competence-threshold',
  denominator_epsilon: '--epsilon',
};

class UsageError extends Error {}

function parseNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
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

function main(argv: string[]): number {
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
    process.stderr.write(
      `replay: ${(error as Error).message.split('\n')[0]?.split('. To specify')[0]} (see npm run replay -- --help)\n`,
    );
    return 2;
  }
  const { values, positionals } = args;
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
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
    const gate = {
      teacher_performance: parseNumber('--teacher-performance', values['teacher-performance']) ?? Number.NaN,
      window_size: parseNumber('--window', values.window),
      alignment_threshold: parseNumber('--alignment-threshold', values['alignment-threshold']),
      competence_threshold: parseNumber('--competence-threshold', values['competence-threshold']),
      denominator_epsilon: parseNumber('--epsilon', values.epsilon),
    };
    const definedGate = Object.fromEntries(Object.entries(gate).filter(([, v]) => v !== undefined)) as typeof gate;
    const sources: LogSource[] = positionals.map((name) => {
      try {
        return { name, text: readFileSync(name, 'utf8') };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? '';
        const why =
          code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (error as Error).message;
        throw new ReplayInputError(name, 0, why);
      }
    });
    const result = replayGate(sources, {
      gate: definedGate,
      schedule: schedule as ReplaySchedule,
      format: format as LogFormat | undefined,
      ...(values['gap-key'] === undefined ? {} : { gapKey: values['gap-key'] }),
      ...(values['val-key'] === undefined ? {} : { valKey: values['val-key'] }),
    });
    process.stdout.write(`${replayLines(result).join('\n')}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${describeError(error)}\n`);
    return 2;
  }
}

function describeError(error: unknown): string {
  if (error instanceof ReplayInputError) {
    return error.line > 0 ? error.message : `${error.file}: ${error.detail}`;
  }
  if (error instanceof GateConfigError) {
    const flag = FLAG_OF_FIELD[error.field as GateConfigField];
    return `replay: ${flag ?? error.field}: ${error.message.replace(/^gate config: /, '')}`;
  }
  if (error instanceof UsageError) return `replay: ${error.message}`;
  // Not a user error: still one line, no stack trace; the message says what failed.
  return `replay: internal error: ${error instanceof Error ? error.message : String(error)}`;
}

process.exitCode = main(process.argv.slice(2));
