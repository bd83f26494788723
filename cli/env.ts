// Look at the agentic micro-environments from the terminal.
//   npm run env -- shell --seed 3                 sample trajectories (expert and baselines), tokens shown by class
//   npm run env -- house --policy explorer --count 5 --style compact
//   npm run env -- calibrate [--tasks 1000]       calibration table of all three environments
//   npm run env -- shop --calibrate               calibration of one environment
//   npm run env -- shell --vocab                  the vocabulary, limits and skill bank
import {
  BASELINES,
  ENV_NAMES,
  SPLITS,
  calibrate,
  createEnv,
  formatCalibration,
  renderTrajectory,
  type BaselineName,
  type EnvName,
  type Split,
} from '../src/core/env';
import type { MicroEnv } from '../src/core/env/microEnv';
import { UserError } from '../src/core/errors';
import { createRng } from '../src/core/rng';
import { parseFlags } from './cliArgs';
import { isEntryPoint, processIo, runCliMain, runCommand, type CliIo } from './cliMain';

const USAGE = `usage: npm run env -- <${[...ENV_NAMES, 'calibrate'].join('|')}> [options]
  --seed N            task universe seed (default 0)
  --split S           ${SPLITS.join(' | ')} (default train)
  --count N           tasks to show (default 2)
  --start N           first task index (default 0)
  --policy P          ${[...BASELINES, 'all'].join(' | ')} (default all)
  --style S           classes | compact (default classes)
  --misleading F      fraction of misleading skills in [0, 1] (default 0.2)
  --penalty F         invalid-action penalty (default 0.1)
  --calibrate         print the calibration table instead of trajectories
  --tasks N           tasks per split for calibration (default 1000)
  --json              calibration as JSON
  --vocab             print vocabulary, limits and skill bank
  --no-color          plain text (default: colour when stdout is a terminal)`;

/** A bad flag or command: one line, exit 2 (core/errors.ts). */
class UsageError extends UserError {}

/** A flag value quoted in a message: at most 40 characters. */
const quote = (v: string): string => (v.length > 40 ? `${v.slice(0, 37)}…` : v);

function intArg(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = value.trim() === '' ? NaN : Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`--${name}: expected an integer in ${min} … ${max}, got "${quote(value)}"`);
  return n;
}

function numArg(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = value.trim() === '' ? NaN : Number(value);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new UsageError(`--${name}: expected a number in ${min} … ${max}, got "${quote(value)}"`);
  return n;
}

/** The command in-process: returns the exit code (0, or 2 for a user error reported to `io` as one line). */
export function main(argv: string[], io: CliIo = processIo): Promise<number> {
  return runCommand('env', async (a, o) => (envCommand(a, o), 0), argv, io);
}

function envCommand(argv: string[], io: CliIo): void {
  const log = (text: string): void => io.stdout(`${text}\n`);
  const parsed = parseFlags(
    argv,
    {
      seed: { type: 'string' },
      split: { type: 'string' },
      count: { type: 'string' },
      start: { type: 'string' },
      policy: { type: 'string' },
      style: { type: 'string' },
      misleading: { type: 'string' },
      penalty: { type: 'string' },
      calibrate: { type: 'boolean' },
      tasks: { type: 'string' },
      json: { type: 'boolean' },
      vocab: { type: 'boolean' },
      'no-color': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  const { values: v, positionals } = parsed;
  if (v.help || positionals.length === 0) {
    log(USAGE);
    return;
  }
  if (positionals.length > 1)
    throw new UsageError(`expected one command, got "${quote(positionals.join(' '))}" (see --help)`);
  const command = positionals[0] as string;
  const options = {
    seed: intArg('seed', v.seed, 0, 0, 0xffffffff),
    misleadingSkillFraction: numArg('misleading', v.misleading, 0.2, 0, 1),
    invalidActionPenalty: numArg('penalty', v.penalty, 0.1, 0, 1000),
  };
  const envNames: EnvName[] =
    command === 'calibrate' ? [...ENV_NAMES] : ENV_NAMES.includes(command as EnvName) ? [command as EnvName] : [];
  if (envNames.length === 0) {
    throw new UsageError(`unknown command "${quote(command)}" (expected ${[...ENV_NAMES, 'calibrate'].join(', ')})`);
  }
  const envs = envNames.map((n) => createEnv(n, options));

  if (command === 'calibrate' || v.calibrate) {
    const tasksPerSplit = intArg('tasks', v.tasks, 1000, 1, 100_000);
    const rows = envs.flatMap((env) => calibrate(env, { tasksPerSplit }));
    if (v.json) {
      log(JSON.stringify({ options, tasksPerSplit, rows }, null, 2));
      return;
    }
    log(
      `calibration: seed ${options.seed}, ${tasksPerSplit} tasks per split, misleading skills ` +
        `${options.misleadingSkillFraction}, invalid-action penalty ${options.invalidActionPenalty}`,
    );
    log(formatCalibration(rows));
    for (const env of envs) {
      const misleading = env.skillBank.misleading.reduce((a, b) => a + b, 0);
      log(
        `${env.name}: maxTurns ${env.limits.maxTurns}, contextTokens ${env.limits.contextTokens}, ` +
          `vocab ${env.vocab.size}, skills ${env.skillBank.size} (${misleading} misleading)`,
      );
    }
    return;
  }

  const env = envs[0] as MicroEnv<unknown>;
  if (v.vocab) {
    log(`${env.name}: vocab ${env.vocab.size}, limits ${JSON.stringify(env.limits)}`);
    log(env.vocab.words.map((w, i) => `${i}:${w}`).join(' '));
    log(`action heads: ${env.vocab.actionHeads.map((h) => env.vocab.words[h]).join(' ')}`);
    env.skillBank.entries.forEach((e, i) =>
      log(
        `skill ${i} [${e.keywords.join(',')}] ${env.skillBank.misleading[i] ? `${e.misleadingText}  (misleading; true: ${e.text})` : e.text}`,
      ),
    );
    return;
  }
  const split = (v.split ?? 'train') as Split;
  if (!SPLITS.includes(split)) throw new UsageError(`--split: expected ${SPLITS.join(', ')}, got "${quote(split)}"`);
  const policy = v.policy ?? 'all';
  if (policy !== 'all' && !BASELINES.includes(policy as BaselineName)) {
    throw new UsageError(`--policy: expected ${[...BASELINES, 'all'].join(', ')}, got "${quote(policy)}"`);
  }
  const style = v.style ?? 'classes';
  if (style !== 'classes' && style !== 'compact')
    throw new UsageError(`--style: expected classes or compact, got "${quote(style)}"`);
  const policies = policy === 'all' ? BASELINES : [policy as BaselineName];
  const count = intArg('count', v.count, 2, 1, 1000);
  const start = intArg('start', v.start, 0, 0, 1_000_000_000);
  const ansi = !v['no-color'] && process.stdout.isTTY === true;
  log(
    `${env.name} (seed ${options.seed}): vocab ${env.vocab.size}, maxTurns ${env.limits.maxTurns}, ` +
      `contextTokens ${env.limits.contextTokens}, skill segment ${env.limits.skillTokens}`,
  );
  const rng = createRng(options.seed);
  for (const task of env.tasks(split, count, start)) {
    log(`\n=== ${task.goal}`);
    for (const p of policies) {
      const [traj] = env.rollout([task], [env.baseline(p, task, rng.fork())]);
      if (traj === undefined) continue;
      log(`--- ${p}`);
      log(renderTrajectory(env.vocab, traj, { style, ansi, showSkill: p === policies[0] }));
    }
  }
}

if (isEntryPoint(import.meta.url)) runCliMain('env', async (argv, io) => (envCommand(argv, io), 0));
