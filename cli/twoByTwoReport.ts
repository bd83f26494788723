// `node --import tsx cli/twoByTwoReport.ts --dir SWEEP_DIR --a KEY=L0,L1 --b KEY=L0,L1 [--a-name TEXT] [--b-name TEXT]
// [--clip-norm N] [--title T] [--intro FILE] [--out PAGE]`: the finished runs of a sweep over two config keys with
// two levels each (e.g. `--vary student.lambdaOpd=0.1,1 --vary student.grpo.gradClip=1,0`), as a 2 × 2 factorial
// paired on the seed (src/core/experiment/twoByTwo.ts): the four combinations, each key's effect at each level of
// the other, their interaction, and what the gradient clip did in each run's teacher phase (metrics.jsonl steps with
// retire_opd/opd_coef > 0). The page carries the command, the commit and the date. Node only.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError, withFsErrors } from '../src/core/errors';
import { getConfigValue } from '../src/core/experiment/config';
import { twoByTwo, twoByTwoPage, type ClipStats, type FactorRun } from '../src/core/experiment/twoByTwo';
import { METRIC } from '../src/core/runLog/metricKeys';
import { parseFlags, refuseBlankPaths } from './cliArgs';
import { isEntryPoint, runCliMain, type CliIo } from './cliMain';
import { currentCommit } from './gitCommit';
import { completedRuns, shellWord } from './pairedReport';

const USAGE =
  'usage: node --import tsx cli/twoByTwoReport.ts --dir SWEEP_DIR --a KEY=L0,L1 --b KEY=L0,L1 [--a-name TEXT] ' +
  '[--b-name TEXT] [--clip-norm N] [--title TEXT] [--intro FILE] [--out PAGE]';

/** "student.lambdaOpd=0.1,1" → the key and its two levels, in the order given (the first is the baseline). */
export function parseFactor(flag: string, text: string | undefined): { key: string; levels: [string, string] } {
  const m = /^([\w.]+)=([^,]+),([^,]+)$/.exec(text ?? '');
  if (!m)
    throw new UserError(`--${flag}: expected KEY=LEVEL0,LEVEL1 (e.g. student.lambdaOpd=0.1,1), got "${text ?? ''}"`);
  return { key: m[1]!, levels: [m[2]!, m[3]!] };
}

/** One run's teacher-phase clip statistics from its metrics.jsonl; null when it logged no teacher-phase update. */
export function teacherPhaseClip(file: string, clipNorm: number): Omit<ClipStats, 'seed' | 'a' | 'b'> | null {
  const text = withFsErrors(file, 'reading the run log', () => readFileSync(file, 'utf8'));
  const clipped: number[] = [];
  const coef: number[] = [];
  const over: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new UserError(`${file}:${i + 1}: not a JSON line`);
    }
    const lambda = row['retire_opd/opd_coef'];
    if (typeof lambda !== 'number' || lambda <= 0) return;
    const c = row[METRIC.actorGradClipped];
    const k = row[METRIC.actorGradClipCoef];
    const n = row[METRIC.actorGradNorm];
    if (typeof c === 'number') clipped.push(c);
    if (typeof k === 'number') coef.push(k);
    if (typeof n === 'number') over.push(n > clipNorm ? 1 : 0);
  });
  if (coef.length === 0) return null;
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  return { clipped: mean(clipped), coef: mean(coef), overNorm: mean(over) };
}

export async function twoByTwoReport(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    dir: { type: 'string' },
    a: { type: 'string' },
    b: { type: 'string' },
    'a-name': { type: 'string' },
    'b-name': { type: 'string' },
    'clip-norm': { type: 'string' },
    title: { type: 'string' },
    intro: { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  refuseBlankPaths({ dir: values.dir, out: values.out, intro: values.intro });
  if (!values.dir) throw new UserError(`--dir is required\n${USAGE}`);
  const A = parseFactor('a', values.a);
  const B = parseFactor('b', values.b);
  const clipNorm = Number(values['clip-norm'] ?? 1);
  if (!(clipNorm > 0)) throw new UserError(`--clip-norm: expected a number > 0, got "${values['clip-norm']}"`);
  const runs: FactorRun[] = [];
  const clip: ClipStats[] = [];
  for (const { name, config, summary } of completedRuns(values.dir)) {
    const a = String(getConfigValue(config, A.key));
    const b = String(getConfigValue(config, B.key));
    if (!A.levels.includes(a) || !B.levels.includes(b)) continue;
    runs.push({ seed: config.seed, a, b, test: summary.test.successRate });
    const stats = teacherPhaseClip(join(values.dir, name, 'metrics.jsonl'), clipNorm);
    if (stats) clip.push({ seed: config.seed, a, b, ...stats });
  }
  const t = twoByTwo(runs, A.levels, B.levels);
  if (t.seeds.length === 0)
    throw new UserError(
      `--dir ${values.dir}: no seed finished all four combinations of ${A.key} ${A.levels.join('/')} × ${B.key} ${B.levels.join('/')}`,
    );
  const intro = values.intro
    ? withFsErrors(values.intro, 'reading --intro', () => readFileSync(values.intro!, 'utf8'))
    : '';
  const page = twoByTwoPage(t, {
    title: values.title ?? `${A.key} × ${B.key}`,
    intro,
    command: ['node --import tsx cli/twoByTwoReport.ts', ...argv.map(shellWord)].join(' '),
    commit: currentCommit(),
    date: new Date().toISOString().slice(0, 10),
    aName: values['a-name'] ?? A.key,
    bName: values['b-name'] ?? B.key,
    clip,
  });
  const out = values.out ?? join(values.dir, 'two-by-two.md');
  withFsErrors(out, 'writing the page', () => writeFileSync(out, `${page}\n`));
  io.stdout(`${page}\n\npage: ${out}\n`);
  return 0;
}

if (isEntryPoint(import.meta.url)) runCliMain('twoByTwoReport', twoByTwoReport);
