// Peak memory of `npm run replay` on a large log (goal: < 300 MB peak RSS whatever the log's size).
// Writes a synthetic log of the requested size to the temp folder, replays it in a child process under
// `/usr/bin/time -v` (else reports the child's own process.resourceUsage().maxRSS), prints peak RSS, wall time
// and the summary line, and deletes the file. Flavours:
//   verl — verl's file logger JSONL (≈2.5 kB lines, ~60 metrics, bare NaN as Python writes them, a validation every
//          10 steps);
//   lab  — the lab's own flat metrics.jsonl (≈190 B lines: ten times as many steps for the same size, the worst case
//          for the per-step columns the replay keeps);
//   csv  — a W&B CSV export (`Step,"run - key","run - key__MIN","run - key__MAX",…`, ~60 columns, the validation
//          column empty between validations);
//   trl  — a TRL trainer_state.json (pretty-printed as the Trainer writes it: one train entry per step, an eval
//          entry every 10 steps, inside one "log_history" array).
//   npx tsx bench/replayMemory.ts [size in MB, default 500] [verl|lab|csv|trl]
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verlLine } from './verlLogLine';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const megabytes = Number(process.argv[2] ?? 500);
const FLAVOURS = ['verl', 'lab', 'csv', 'trl'] as const;
type Flavour = (typeof FLAVOURS)[number];
const flavour: Flavour = FLAVOURS.find((f) => f === process.argv[3]) ?? 'verl';
const EXTENSION: Record<Flavour, string> = { verl: 'jsonl', lab: 'jsonl', csv: 'csv', trl: 'json' };
const path = join(tmpdir(), `replay-memory-${process.pid}.${EXTENSION[flavour]}`);

/** The W&B export's metrics: the gap, the validation score and 18 others, each with its __MIN and __MAX. */
const WANDB_KEYS = [
  'skillsd/teacher_student_gap_mean',
  'val/success_rate',
  ...Array.from({ length: 18 }, (_, m) => `actor/metric_${m}/mean`),
];

/** The header of a W&B CSV export. */
function csvHeader(): string {
  const cells = WANDB_KEYS.flatMap((k) => [`run - ${k}`, `run - ${k}__MIN`, `run - ${k}__MAX`]);
  return `Step,${cells.map((c) => JSON.stringify(c)).join(',')}\n`;
}

/** One W&B CSV row of step k (≈1 kB): the validation cells empty except every 10 steps. */
function csvLine(k: number): string {
  const cells = WANDB_KEYS.flatMap((key, m) => {
    if (key === 'val/success_rate' && k % 10 !== 0) return ['', '', ''];
    const x =
      m === 0
        ? -0.6 * Math.exp(-k / 20_000) - 0.01 * Math.sin(k)
        : m === 1
          ? Math.min(0.95, 0.1 + k / 100_000)
          : Math.sin(k * 0.01 + m) * 0.5;
    return [String(x), String(x - 0.01), String(x + 0.01)];
  });
  return `${k},${cells.join(',')}\n`;
}

/** A trainer_state.json's log_history entries of step k, indented as the Trainer writes them (≈1 kB). */
function trlEntries(k: number): string {
  const train: Record<string, number> = { epoch: k / 1000, grad_norm: 0.5 + 0.1 * Math.sin(k) };
  for (let m = 0; m < 20; m++) train[`train/metric_${m}`] = Math.sin(k * 0.01 + m) * 0.5;
  train['opd/teacher_student_gap_mean'] = -0.6 * Math.exp(-k / 20_000) - 0.01 * Math.sin(k);
  train.step = k;
  const indent = (o: object) => JSON.stringify(o, null, 2).replace(/\n/g, '\n    ');
  const entries = [indent(train)];
  if (k % 10 === 0)
    entries.push(indent({ epoch: k / 1000, eval_success_rate: Math.min(0.95, 0.1 + k / 100_000), step: k }));
  return `${k === 1 ? '' : ',\n'}    ${entries.join(',\n    ')}`;
}

/** One line of the lab's metrics.jsonl at step k (≈190 B). */
function labLine(k: number): string {
  const row: Record<string, number> = {
    step: k,
    'grpo/reward_mean': 0.2 + 0.5 * Math.tanh(k / 50_000),
    'grpo/frac_reward_zero_std': 0.1 + 0.05 * Math.sin(k),
    'opd/teacher_student_gap_mean': -0.6 * Math.exp(-k / 200_000) - 0.01 * Math.sin(k),
    'retire_opd/trigger_step': -1,
    'retire_opd/teacher_forward_skipped': 0,
  };
  if (k % 10 === 0) row['val/success_rate'] = Math.min(0.95, 0.1 + k / 1_000_000);
  return `${JSON.stringify(row)}\n`;
}

const LINE: Record<Flavour, (k: number) => string> = { verl: verlLine, lab: labLine, csv: csvLine, trl: trlEntries };
const HEAD: Record<Flavour, string> = {
  verl: '',
  lab: '',
  csv: csvHeader(),
  trl: '{\n  "best_metric": null,\n  "global_step": 0,\n  "log_history": [\n',
};
const TAIL: Record<Flavour, string> = { verl: '', lab: '', csv: '', trl: '\n  ],\n  "max_steps": 0\n}\n' };

async function writeLog(): Promise<number> {
  const out = createWriteStream(path);
  const target = megabytes * 1024 * 1024;
  let bytes = 0;
  let k = 1;
  out.write(HEAD[flavour]);
  while (bytes < target) {
    let batch = '';
    for (let i = 0; i < 1000; i++, k++) batch += LINE[flavour](k);
    bytes += Buffer.byteLength(batch);
    if (!out.write(batch)) await new Promise<void>((done) => out.once('drain', () => done()));
  }
  out.write(TAIL[flavour]);
  await new Promise<void>((done, fail) => out.end((e?: Error | null) => (e ? fail(e) : done())));
  return k - 1;
}

const DESCRIPTION: Record<Flavour, string> = {
  verl: 'verl file logger, ~2.5 kB lines',
  lab: "the lab's metrics.jsonl, ~190 B lines",
  csv: 'W&B CSV export, ~1 kB rows',
  trl: 'TRL trainer_state.json, ~1 kB entries',
};

async function main(): Promise<void> {
  const steps = await writeLog();
  const size = statSync(path).size;
  const args = ['--import', 'tsx', join(ROOT, 'cli/replay.ts'), path, '--teacher-performance', '0.9'];
  const timeV = existsSync('/usr/bin/time');
  const started = Date.now();
  const run = timeV
    ? spawnSync('/usr/bin/time', ['-v', process.execPath, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 })
    : spawnSync(
        process.execPath,
        [
          ...args.slice(0, 2),
          '-e',
          `process.argv.splice(1, 0, ${JSON.stringify(args[2])}); await import(${JSON.stringify(args[2])}); ` +
            `process.on('exit', () => console.error('maxRSS_kB', process.resourceUsage().maxRSS));`,
          ...args.slice(3),
        ],
        { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 },
      );
  const seconds = (Date.now() - started) / 1000;
  rmSync(path, { force: true });
  const rssKb = Number(
    /Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr)?.[1] ?? /maxRSS_kB (\d+)/.exec(run.stderr)?.[1],
  );
  const summary = run.stdout.trim().split('\n').pop();
  console.log(`log: ${(size / 1024 / 1024).toFixed(0)} MB, ${steps} steps (${DESCRIPTION[flavour]})`);
  console.log(
    `exit ${run.status}; wall ${seconds.toFixed(1)} s; peak RSS ${(rssKb / 1024).toFixed(0)} MB (${timeV ? '/usr/bin/time -v' : 'process.resourceUsage'})`,
  );
  console.log(`summary: ${summary}`);
  if (run.status !== 0) console.log(run.stderr.split('\n').slice(0, 5).join('\n'));
}

void main().catch((e: unknown) => {
  rmSync(path, { force: true });
  console.error(e);
  process.exitCode = 1;
});
