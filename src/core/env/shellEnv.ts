// shell: a terminal agent on a tiny random filesystem (Terminal-Bench in miniature).
// The universe (fixed by the seed) keeps each of 8 services' key file and log file in one of 20 directories; a task
// shows three services' files (plus two distractor files) and asks for a password or for the number of ERROR/WARN
// lines of one service's log. Split key: goal, answer and the set of services present.
// Information the student must earn: `ls` lists all 20 directories whatever the task, so only a probe
// (`cat`/`grep`/`ls DIR`) of the right directory finds the file, and 3 turns allow two probes and an answer: a
// skill-free explorer succeeds ≈ 2/20 plus a lucky guess (≈ 24 %), a skill follower ≈ 85 %, the expert 100 %.
// Answers come from a small set (8 passwords, counts 0..5) so that copying the answer off the screen is easy to
// learn; finding it is what the skill (or internalised knowledge of the universe) is for.
// The skill says where that service keeps its key/log ("nginx key in etc"). With `randomFacts` (the negative
// control) every task draws its own directories, so nothing is fixed to internalise; the skill still tells the
// task's truth (or, for a misleading entry, a wrong directory).
//   actions: ls | ls DIR | cat DIR FILE | grep WORD DIR | answer VALUE
//   observations: file lists, file contents, `FILE COUNT` pairs (grep -c), `correct`/`wrong`, or errors.
// (~365 lines on purpose: one environment's world, transitions and scripted policies read best together.)
import type { Rng } from '../rng';
import { deriveRng, hashString } from '../rng';
import type { SkillEntry } from './skillBank';
import { Outcome } from './episodeBatch';
import { MicroEnv, resolveEnvOptions, type EnvTask, type EpisodePolicy, type WorldDraft } from './microEnv';
import { scriptedPolicy } from './scriptedPolicy';
import type { EnvOptions } from './types';

export const SHELL_DIRS = [
  'etc', 'var', 'opt', 'srv', 'home', 'tmp', 'usr', 'lib', 'boot', 'mnt',
  'root', 'proc', 'run', 'sys', 'dev', 'media', 'data', 'conf', 'cache', 'spool',
] as const; // prettier-ignore
export const SHELL_SERVICES = ['nginx', 'redis', 'mysql', 'sshd', 'cron', 'kafka', 'mongo', 'httpd'] as const;
const DISTRACTOR_FILES = ['notes', 'backup', 'readme'] as const;
const LEVELS = ['ok', 'warn', 'error'] as const;
const PASSWORDS = ['tiger', 'maple', 'cobalt', 'lemon', 'orbit', 'pixel', 'falcon', 'ember'] as const;
const COUNTS = ['0', '1', '2', '3', '4', '5'] as const;
const LOG_LINES = 6;
const MAX_FILES_PER_DIR = 4;
const SERVICES_PER_TASK = 3;
const KINDS = ['password', 'error', 'warn'] as const;
type Kind = (typeof KINDS)[number];

const HEADS = ['ls', 'cat', 'grep', 'answer'] as const;
/** turn and token limits (MicroEnvSpec.limits) */
const LIMITS = { maxTurns: 3, maxActionTokens: 4, maxObsTokens: 9, maxPromptTokens: 7, skillTokens: 6 };
const WORDS: readonly string[] = [
  ...HEADS,
  ...SHELL_DIRS,
  ...SHELL_SERVICES,
  ...SHELL_SERVICES.flatMap((s) => [`${s}.key`, `${s}.log`]),
  ...DISTRACTOR_FILES,
  ...LEVELS,
  ...PASSWORDS,
  ...COUNTS,
  // prompt, skill and observation words
  ...['find', 'the', 'password', 'of', 'count', 'lines', 'key', 'log', 'in'],
  ...['no', 'such', 'file', 'dir', 'match', 'empty', 'correct', 'wrong', 'bad', 'command'],
];

interface ShellFile {
  dir: number; // index into SHELL_DIRS
  name: string;
  nameId: number;
  isKey: boolean;
  contentIds: readonly number[];
  /** content as words: `password X` for keys, one level word per line for logs, `empty` otherwise */
  content: readonly string[];
}

export interface ShellWorld {
  service: number;
  kind: Kind;
  answer: string;
  answerId: number;
  /** present directories, ascending index */
  dirs: readonly number[];
  /** files sorted by (dir, vocabulary order of the name) */
  files: readonly ShellFile[];
  /** the target file (where the answer is) */
  targetDir: number;
  targetFile: string;
}

export class ShellEnv extends MicroEnv<ShellWorld> {
  /** universe: directory of each service's key and log file (with randomFacts: only the skills' wording source) */
  readonly keyDir: readonly number[];
  readonly logDir: readonly number[];
  /** negative control: every task draws its own directories (nothing fixed to internalise) */
  readonly randomFacts: boolean;
  private readonly dirById: Int8Array;
  private readonly dirIds: readonly number[];
  private readonly countIds: readonly number[];
  private readonly ids: Record<'ls' | 'cat' | 'grep' | 'answer' | 'empty' | 'correct' | 'wrong', number>;
  private readonly errors: { bad: readonly number[]; noDir: readonly number[]; noFile: readonly number[] };

  constructor(options: Partial<EnvOptions> = {}) {
    const o = resolveEnvOptions(options);
    const u = deriveRng(o.seed, hashString('shell-universe'));
    const keyDir = SHELL_SERVICES.map(() => u.int(SHELL_DIRS.length));
    const logDir = SHELL_SERVICES.map(() => u.int(SHELL_DIRS.length));
    const skills: SkillEntry[] = SHELL_SERVICES.flatMap((s, i) => [
      {
        keywords: [s, 'password'],
        text: ShellEnv.skillText(s, 'key', keyDir[i] as number),
        misleadingText: ShellEnv.skillText(s, 'key', ShellEnv.wrongDir(keyDir[i] as number, u)),
      },
      {
        keywords: [s, 'lines'],
        text: ShellEnv.skillText(s, 'log', logDir[i] as number),
        misleadingText: ShellEnv.skillText(s, 'log', ShellEnv.wrongDir(logDir[i] as number, u)),
      },
    ]);
    super({ name: 'shell', words: WORDS, heads: HEADS, limits: LIMITS, skills, stateSize: 1, randomFacts: true }, o);
    this.keyDir = keyDir;
    this.logDir = logDir;
    this.randomFacts = o.randomFacts === true;
    const v = this.vocab;
    this.dirIds = SHELL_DIRS.map((d) => v.id(d));
    this.dirById = new Int8Array(v.size).fill(-1);
    this.dirIds.forEach((id, d) => (this.dirById[id] = d));
    this.countIds = COUNTS.map((c) => v.id(c));
    this.ids = {
      ls: v.id('ls'),
      cat: v.id('cat'),
      grep: v.id('grep'),
      answer: v.id('answer'),
      empty: v.id('empty'),
      correct: v.id('correct'),
      wrong: v.id('wrong'),
    };
    this.errors = { bad: v.encode('bad command'), noDir: v.encode('no such dir'), noFile: v.encode('no such file') };
  }

  private static skillText(service: string, file: 'key' | 'log', dir: number): string {
    return `${service} ${file} in ${SHELL_DIRS[dir] as string}`;
  }

  /** a directory other than `d`, uniform */
  private static wrongDir(d: number, rng: Rng): number {
    return (d + 1 + rng.int(SHELL_DIRS.length - 1)) % SHELL_DIRS.length;
  }

  private file(dir: number, name: string, content: readonly string[]): ShellFile {
    const v = this.vocab;
    return {
      dir,
      name,
      nameId: v.id(name),
      isKey: name.endsWith('.key'),
      content,
      contentIds: content.map((w) => v.id(w)),
    };
  }

  protected draft(rng: Rng): WorldDraft<ShellWorld> {
    const service = rng.int(SHELL_SERVICES.length);
    const kind = rng.pick(KINDS);
    // the directories of this task: the universe's, or (negative control) drawn for this task alone
    const keyDir = this.randomFacts ? SHELL_SERVICES.map(() => rng.int(SHELL_DIRS.length)) : this.keyDir;
    const logDir = this.randomFacts ? SHELL_SERVICES.map(() => rng.int(SHELL_DIRS.length)) : this.logDir;
    // SERVICES_PER_TASK services whose files fit MAX_FILES_PER_DIR per directory
    let present: number[];
    for (;;) {
      const others = rng.shuffle(SHELL_SERVICES.map((_, i) => i).filter((i) => i !== service));
      present = [service, ...others.slice(0, SERVICES_PER_TASK - 1)];
      const perDir = new Array<number>(SHELL_DIRS.length).fill(0);
      for (const s of present) {
        perDir[keyDir[s] as number]! += 1;
        perDir[logDir[s] as number]! += 1;
      }
      if (perDir.every((n) => n <= MAX_FILES_PER_DIR)) break;
    }
    const files: ShellFile[] = [];
    let answer = '';
    for (const s of present) {
      const name = SHELL_SERVICES[s] as string;
      const password = rng.pick(PASSWORDS);
      files.push(this.file(keyDir[s] as number, `${name}.key`, ['password', password]));
      // a log of LOG_LINES lines whose count of the asked level is uniform in 0..5
      const level = kind === 'password' ? rng.pick(['error', 'warn'] as const) : kind;
      const count = rng.int(COUNTS.length);
      const lines: string[] = [];
      for (let k = 0; k < LOG_LINES; k++) {
        lines.push(k < count ? level : rng.pick(LEVELS.filter((l) => l !== level)));
      }
      rng.shuffle(lines);
      files.push(this.file(logDir[s] as number, `${name}.log`, lines));
      if (s === service) answer = kind === 'password' ? password : String(count);
    }
    // every directory exists in every task, so listing the root tells nothing
    const dirs = SHELL_DIRS.map((_, d) => d);
    for (const name of rng.shuffle([...DISTRACTOR_FILES]).slice(0, 2)) {
      const room = dirs.filter((d) => files.filter((f) => f.dir === d).length < MAX_FILES_PER_DIR);
      files.push(this.file(rng.pick(room), name, ['empty']));
    }
    files.sort((a, b) => a.dir - b.dir || a.nameId - b.nameId);
    const sname = SHELL_SERVICES[service] as string;
    const goal = kind === 'password' ? `find the password of ${sname}` : `count ${kind} lines of ${sname}`;
    const targetDir = kind === 'password' ? (keyDir[service] as number) : (logDir[service] as number);
    const targetFile = kind === 'password' ? `${sname}.key` : `${sname}.log`;
    const fileKind = kind === 'password' ? 'key' : 'log';
    return {
      goal,
      world: { service, kind, answer, answerId: this.vocab.id(answer), dirs, files, targetDir, targetFile },
      splitKey: `${goal}|${answer}|${[...present].sort((a, b) => a - b).join(',')}`,
      skill: this.randomFacts
        ? {
            text: ShellEnv.skillText(sname, fileKind, targetDir),
            misleadingText: ShellEnv.skillText(sname, fileKind, ShellEnv.wrongDir(targetDir, rng)),
          }
        : undefined,
    };
  }

  initState(): void {
    // the filesystem is read-only: no mutable state
  }

  /** vocabulary id → directory index, or -1 */
  private dirOf(id: number): number {
    return this.dirById[id] ?? -1;
  }

  apply(world: ShellWorld, s: Int32Array, o: number, action: readonly number[], nArgs: number, out: number[]): number {
    const ids = this.ids;
    const head = action[0] as number;
    const a1 = action[1] as number;
    const a2 = action[2] as number;
    if (head === ids.ls) {
      if (nArgs === 0) {
        // the root listing is paged to what an observation holds: the first maxObsTokens − 1 directories
        for (const d of world.dirs.slice(0, this.limits.maxObsTokens - 1)) out.push(this.dirIds[d] as number);
        return Outcome.none;
      }
      if (nArgs !== 1) return this.reject(this.errors.bad, out);
      const d = this.dirOf(a1);
      if (!(d >= 0 && world.dirs.includes(d))) return this.reject(this.errors.noDir, out);
      for (const f of world.files) if (f.dir === d) out.push(f.nameId);
      if (out.length === 0) out.push(ids.empty);
      return Outcome.none;
    }
    if (head === ids.cat) {
      if (nArgs !== 2) return this.reject(this.errors.bad, out);
      const d = this.dirOf(a1);
      for (const f of world.files) {
        if (f.dir === d && f.nameId === a2) {
          for (const t of f.contentIds) out.push(t);
          return Outcome.none;
        }
      }
      return this.reject(d >= 0 && world.dirs.includes(d) ? this.errors.noFile : this.errors.noDir, out);
    }
    if (head === ids.grep) {
      // grep -c WORD DIR/*: every file of DIR with its count of lines holding WORD (a key file is one line)
      if (nArgs !== 2) return this.reject(this.errors.bad, out);
      const d = this.dirOf(a2);
      if (!(d >= 0 && world.dirs.includes(d))) return this.reject(this.errors.noDir, out);
      for (const f of world.files) {
        if (f.dir !== d) continue;
        let n = 0;
        if (f.isKey) n = f.contentIds.includes(a1) ? 1 : 0;
        else for (const t of f.contentIds) if (t === a1) n++;
        out.push(f.nameId, this.countIds[Math.min(n, COUNTS.length - 1)] as number);
      }
      if (out.length === 0) out.push(ids.empty);
      return Outcome.none;
    }
    if (head === ids.answer) {
      if (nArgs !== 1) return this.reject(this.errors.bad, out);
      const correct = a1 === world.answerId;
      out.push(correct ? ids.correct : ids.wrong);
      s[o] = correct ? 1 : 0;
      return Outcome.done | (correct ? Outcome.success : 0);
    }
    return this.reject(this.errors.bad, out);
  }

  score(_world: ShellWorld, s: Int32Array, o: number): number {
    return s[o] === 1 ? 1 : 0;
  }

  validActions(world: ShellWorld): string[][] {
    const acts: string[][] = [['ls']];
    for (const d of world.dirs) acts.push(['ls', SHELL_DIRS[d] as string]);
    for (const f of world.files) acts.push(['cat', SHELL_DIRS[f.dir] as string, f.name]);
    for (const l of LEVELS) for (const d of world.dirs) acts.push(['grep', l, SHELL_DIRS[d] as string]);
    for (const a of [...PASSWORDS, ...COUNTS]) acts.push(['answer', a]);
    return acts;
  }

  expertPlan(world: ShellWorld): string[][] {
    const dir = SHELL_DIRS[world.targetDir] as string;
    const look = world.kind === 'password' ? ['cat', dir, world.targetFile] : ['grep', world.kind, dir];
    return [look, ['answer', world.answer]];
  }

  /** the answer visible in an observation of `look`, or null when the target file was not there */
  private static readAnswer(world: ShellWorld, obs: readonly string[]): string | null {
    if (world.kind === 'password') return obs[0] === 'password' ? (obs[1] ?? null) : null;
    const k = obs.indexOf(world.targetFile);
    return k >= 0 ? (obs[k + 1] ?? null) : null;
  }

  private static probe(world: ShellWorld, dir: string): string[] {
    return world.kind === 'password' ? ['cat', dir, world.targetFile] : ['grep', world.kind, dir];
  }

  /**
   * Probes directories in cyclic vocabulary order from a random start (skipping `tried`), then answers what it
   * read, or a fixed guess. Its actions never depend on where the file is, so its traces (successful or not) do
   * not teach where files are: they are the student-view demonstrations.
   */
  private static *explore(
    world: ShellWorld,
    rng: Rng,
    tried: readonly string[],
  ): Generator<string[], void, readonly string[]> {
    const start = rng.int(SHELL_DIRS.length);
    for (let k = 0; k < SHELL_DIRS.length; k++) {
      const dir = SHELL_DIRS[(start + k) % SHELL_DIRS.length] as string;
      if (tried.includes(dir)) continue;
      const obs = yield ShellEnv.probe(world, dir);
      const ans = ShellEnv.readAnswer(world, obs);
      if (ans !== null) {
        yield ['answer', ans];
        return;
      }
    }
  }

  explorer(task: EnvTask<ShellWorld>, rng: Rng): EpisodePolicy {
    return ShellEnv.budgeted(task.world, this.limits.maxTurns, () => ShellEnv.explore(task.world, rng, []));
  }

  skillFollower(task: EnvTask<ShellWorld>, rng: Rng): EpisodePolicy {
    const world = task.world;
    const dir = task.skill.split(' ').at(-1) as string; // "<service> key|log in <dir>"
    return ShellEnv.budgeted(world, this.limits.maxTurns, function* () {
      const obs = yield ShellEnv.probe(world, dir);
      const ans = ShellEnv.readAnswer(world, obs);
      if (ans !== null) {
        yield ['answer', ans];
        return;
      }
      yield* ShellEnv.explore(world, rng, [dir]);
    });
  }

  /** a script that, on its last turn, answers (a fixed guess when it has not read the answer) instead of probing */
  private static budgeted(
    world: ShellWorld,
    maxTurns: number,
    script: () => Generator<string[], void, readonly string[]>,
  ): EpisodePolicy {
    const guess = world.kind === 'password' ? 'tiger' : '0';
    return scriptedPolicy(function* () {
      const inner = script();
      let obs: readonly string[] = [];
      for (let turn = 0; ; turn++) {
        const r = inner.next(obs);
        const action = r.done ? ['answer', guess] : r.value;
        if (turn === maxTurns - 1 && action[0] !== 'answer') {
          yield ['answer', guess];
          return;
        }
        obs = yield action;
        if (action[0] === 'answer') return;
      }
    });
  }
}
