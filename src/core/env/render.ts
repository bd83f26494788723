// Text rendering of trajectories with their token classes, for the trajectory viewer and the CLI.
import { TOKEN_CLASS_NAMES, TokenClass, type Trajectory, type Vocabulary } from './types';

/** A maximal run of consecutive tokens of one class. */
export interface ClassRun {
  cls: TokenClass;
  /** position of the run's first token in the stream */
  start: number;
  tokens: number[];
  text: string;
}

/** Consecutive tokens of equal class grouped into runs (what a viewer colours). */
export function classRuns(vocab: Vocabulary, tokens: ArrayLike<number>, classes: ArrayLike<number>): ClassRun[] {
  if (tokens.length !== classes.length) {
    throw new Error(`classRuns: ${tokens.length} tokens but ${classes.length} classes`);
  }
  const runs: ClassRun[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const cls = classes[i] as TokenClass;
    const last = runs.at(-1);
    if (last !== undefined && last.cls === cls) last.tokens.push(tokens[i] as number);
    else runs.push({ cls, start: i, tokens: [tokens[i] as number], text: '' });
  }
  for (const r of runs) r.text = vocab.decode(r.tokens);
  return runs;
}

/** ANSI colours per class: prompt cyan, skill magenta, head bold yellow, arg yellow, observation green, special dim. */
const ANSI: Record<TokenClass, string> = {
  [TokenClass.prompt]: '\x1b[36m',
  [TokenClass.skill]: '\x1b[35m',
  [TokenClass.actionHead]: '\x1b[1;33m',
  [TokenClass.actionArg]: '\x1b[33m',
  [TokenClass.observation]: '\x1b[32m',
  [TokenClass.special]: '\x1b[2m',
};
const RESET = '\x1b[0m';

export interface RenderOptions {
  /** 'classes': one line per class run, labelled; 'compact': one line per turn, `action → observation` */
  style?: 'classes' | 'compact';
  /** colour the tokens by class with ANSI escapes */
  ansi?: boolean;
  /** show the task's skill (the teacher's privileged context) in the header */
  showSkill?: boolean;
}

export function renderTrajectory(vocab: Vocabulary, traj: Trajectory, opts: RenderOptions = {}): string {
  const { task } = traj;
  const paint = (cls: TokenClass, text: string): string => (opts.ansi ? `${ANSI[cls]}${text}${RESET}` : text);
  const lines: string[] = [
    `${task.env} ${task.split}#${task.index}  reward ${traj.reward.toFixed(2)}  ` +
      `${traj.success ? 'success' : 'failure'}  turns ${traj.turns}` +
      (traj.invalidActions !== undefined ? `  invalid ${traj.invalidActions}` : ''),
  ];
  if (opts.showSkill !== false) {
    const text = task.skill ?? vocab.decode(task.skillTokens.filter((t) => t > 7));
    lines.push(
      `  ${'skill'.padEnd(11)} ${paint(TokenClass.skill, text)}${task.skillMisleading ? '  (misleading)' : ''}`,
    );
  }
  const runs = classRuns(vocab, traj.tokens, traj.classes);
  if (opts.style === 'compact') {
    let line = '';
    let turn = 0;
    for (const r of runs) {
      if (r.cls === TokenClass.prompt) lines.push(`  ${'prompt'.padEnd(11)} ${paint(r.cls, r.text)}`);
      else if (r.cls === TokenClass.actionHead) line = `  ${`turn ${++turn}`.padEnd(11)} ${paint(r.cls, r.text)}`;
      else if (r.cls === TokenClass.actionArg) {
        const args = r.text.replace(/ ?<eoa>$/, '');
        if (args.length > 0) line += ` ${paint(r.cls, args)}`;
      } else if (r.cls === TokenClass.observation) {
        lines.push(`${line}  →  ${paint(r.cls, r.text.replace(/^<obs> ?/, ''))}`);
        line = '';
      }
    }
    return lines.join('\n');
  }
  for (const r of runs) lines.push(`  ${(TOKEN_CLASS_NAMES[r.cls] ?? '?').padEnd(11)} ${paint(r.cls, r.text)}`);
  return lines.join('\n');
}
