// `npm run replay` as a command: cli/replay.ts's main(argv, io) called in-process on the shipped fixtures and on bad
// inputs, with the real file reader and stdout/stderr captured. The spawned script itself (exit status of the
// process, stream wiring) is tested in replay.e2e.test.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main, nodeIo } from '../../cli/replay';

const root = resolve(__dirname, '../..');
const fixtures = join(root, 'test/fixtures/replay');

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  lines: Record<string, unknown>[];
}

/** Run the command in-process: what it would print, and the exit code it returns. */
async function replay(...args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const status = await main(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    readLog: nodeIo.readLog,
  });
  const lines = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { status, stdout, stderr, lines };
}

const summaryOf = (run: Run) => run.lines[run.lines.length - 1];

describe.concurrent('replay on the shipped fixtures', () => {
  it('verl file logger: retires at step 35, as the logged run itself did', async () => {
    const run = await replay(`${fixtures}/verl_retire_opd.jsonl`, '--teacher-performance', '0.8');
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(summaryOf(run)).toEqual({
      type: 'summary',
      retired: true,
      trigger_step: 35,
      windows: 7,
      evaluations: 7,
      teacher_forward_steps_saved: 25,
      schedule: 'adaptive',
      format: 'verl',
      gap_key: 'skillsd/teacher_student_gap_mean',
      val_key: 'val/success_rate',
      steps: 60,
      validations: 13,
      log_trigger_step: 35,
      agrees_with_log: true,
      // what the decision compared: W = 5 and a validation every 5 steps read each window where it closes
      evidence: {
        step: 35,
        window_index: 7,
        window_start_step: 31,
        window_end_step: 35,
        previous_window_index: 6,
        previous_window_end_step: 30,
        age_steps: 0,
      },
    });
    const evaluations = run.lines.slice(0, -1);
    expect(evaluations.map((e) => e.step)).toEqual([5, 10, 15, 20, 25, 30, 35]);
    expect(evaluations[0]).toMatchObject({ type: 'evaluation', alignment_progress: null, competence_ratio: null });
    expect(evaluations.map((e) => e.retired)).toEqual([false, false, false, false, false, false, true]);
  });

  it('verl: every evaluated P and C matches the retire_opd metrics the logged run wrote', async () => {
    const run = await replay(`${fixtures}/verl_retire_opd.jsonl`, '--teacher-performance', '0.8');
    const logged = new Map<number, Record<string, number>>();
    for (const line of readFileSync(join(fixtures, 'verl_retire_opd.jsonl'), 'utf8').trim().split('\n')) {
      const row = JSON.parse(line.replace(/NaN/g, 'null')) as { step: number; data: Record<string, number> };
      logged.set(row.step, row.data);
    }
    for (const e of run.lines.slice(0, -1)) {
      const data = logged.get(e.step as number);
      expect(e.alignment_progress).toBe(data?.['retire_opd/alignment_progress'] ?? null);
      expect(e.competence_ratio).toBe(data?.['retire_opd/competence_ratio'] ?? null);
    }
  });

  it('TRL trainer_state.json: never retires (trigger_step null); validations lag the windows', async () => {
    const run = await replay(`${fixtures}/trl_trainer_state.json`, '--teacher-performance', '0.9');
    expect(run.status).toBe(0);
    expect(summaryOf(run)).toMatchObject({
      retired: false,
      trigger_step: null,
      windows: 10,
      evaluations: 5,
      teacher_forward_steps_saved: 0,
      format: 'trl',
      gap_key: 'opd/teacher_student_gap_mean',
      val_key: 'eval_success_rate',
    });
    expect(summaryOf(run)).not.toHaveProperty('agrees_with_log');
    // The validation at step 50 evaluates the 5th window, which ended at step 25.
    expect(run.lines[4]).toMatchObject({ step: 50, window_index: 5, window_end_step: 25 });
  });

  it('two TensorBoard single-metric CSV exports joined on the step', async () => {
    const files = [
      `${fixtures}/run-grpo_opd-tag-skillsd_teacher_student_gap_mean.csv`,
      `${fixtures}/run-grpo_opd-tag-val_success_rate.csv`,
    ];
    const strict = await replay(...files, '--teacher-performance', '0.75', '--window', '4');
    expect(strict.status).toBe(0);
    expect(summaryOf(strict)).toMatchObject({ retired: false, trigger_step: null, windows: 10, evaluations: 10 });
    const loose = await replay(
      ...files,
      '--teacher-performance',
      '0.75',
      '--window',
      '4',
      '--alignment-threshold',
      '0.05',
    );
    expect(summaryOf(loose)).toMatchObject({
      retired: true,
      trigger_step: 32,
      teacher_forward_steps_saved: 8,
      format: 'csv',
      gap_key: 'skillsd/teacher_student_gap_mean',
      val_key: 'val/success_rate',
    });
  });

  it('simple jsonl {"step","gap","val"}', async () => {
    const run = await replay(`${fixtures}/simple.jsonl`, '--teacher-performance', '0.7', '--window', '3');
    expect(run.status).toBe(0);
    expect(summaryOf(run)).toMatchObject({
      retired: true,
      trigger_step: 21,
      windows: 7,
      teacher_forward_steps_saved: 9,
    });
  });

  it("the lab's own metrics.jsonl replays with no key mapping and agrees with its logged trigger", async () => {
    const run = await replay(`${fixtures}/lab_metrics.jsonl`, '--teacher-performance', '0.6', '--format', 'jsonl');
    expect(run.status).toBe(0);
    expect(summaryOf(run)).toMatchObject({
      trigger_step: 35,
      log_trigger_step: 35,
      agrees_with_log: true,
      gap_key: 'opd/teacher_student_gap_mean',
      val_key: 'val/success_rate',
    });
  });

  it('accepts a negative threshold written as a separate argument', async () => {
    const run = await replay(
      `${fixtures}/simple.jsonl`,
      '--teacher-performance',
      '0.7',
      '--window',
      '3',
      '--alignment-threshold',
      '-0.5',
    );
    expect(run.status).toBe(0);
    expect(summaryOf(run)).toMatchObject({ retired: false, trigger_step: null });
  });

  it('a different γ moves the trigger and the summary says the replay disagrees with the log', async () => {
    const run = await replay(
      `${fixtures}/verl_retire_opd.jsonl`,
      '--teacher-performance',
      '0.8',
      '--competence-threshold',
      '0.99',
    );
    expect(summaryOf(run)).toMatchObject({ log_trigger_step: 35, agrees_with_log: false });
    expect(summaryOf(run)?.trigger_step).not.toBe(35);
  });
});

describe.concurrent('replay on bad input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  function expectUserError(run: Run, pattern: RegExp) {
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(pattern);
    expect(run.stderr).not.toMatch(/\n\s+at /); // never a stack trace
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  }

  it.each([
    ['unparseable line', 'a.jsonl', '{"step":1,"gap":-0.5}\n{"step":2,"gap":-0.4\n', /a\.jsonl:2: not valid JSON/],
    [
      'non-finite gap',
      'b.jsonl',
      '{"step":1,"gap":NaN,"val":0.5}\n',
      /b\.jsonl:1: step 1: gap "gap" is not finite: NaN/,
    ],
    [
      'non-finite score',
      'c.csv',
      'step,gap,val\n1,-0.5,\n2,-0.4,inf\n',
      /c\.csv:3: step 2: validation score "val" is not finite/,
    ],
    ['missing step', 'd.jsonl', '{"step":1,"gap":-1,"val":0.5}\n{"gap":-1}\n', /d\.jsonl:2: missing step/],
    [
      'steps out of order',
      'e.jsonl',
      '{"step":1,"gap":-1,"val":0.5}\n{"step":3,"gap":-1}\n{"step":2,"gap":-1}\n',
      /e\.jsonl:3: step 2 is out of order \(after step 3\)/,
    ],
    ['empty file', 'f.jsonl', '', /f\.jsonl:1: empty file/],
    [
      'entry without step in trainer_state.json',
      'g.json',
      '{\n  "log_history": [\n    {"loss": 1, "step": 1},\n    {"loss": 2}\n  ]\n}\n',
      /g\.json:4: missing step/,
    ],
  ])('%s → FILE:LINE on stderr, exit 2', async (_what, name, text, pattern) => {
    expectUserError(await replay(file(name, text), '--teacher-performance', '0.8'), pattern);
  });

  it('an unknown key asked for', async () => {
    const path = file('h.jsonl', '{"step":1,"gap":-1,"val":0.5}\n');
    expectUserError(
      await replay(path, '--teacher-performance', '0.8', '--gap-key', 'kl'),
      /h\.jsonl:1: --gap-key "kl" is not a key of this log \(keys: gap, val\)/,
    );
  });

  it('a missing file', async () => {
    expectUserError(await replay(join(dir, 'nope.jsonl'), '--teacher-performance', '0.8'), /nope\.jsonl: no such file/);
  });

  it.each([
    [['--teacher-performance', '0'], /replay: --teacher-performance must be a finite number > 0 \(got 0\)/],
    [['--teacher-performance', 'abc'], /replay: --teacher-performance: expected a number, got "abc"/],
    [['--teacher-performance', '0.8', '--window', '2.5'], /replay: --window must be a positive integer \(got 2\.5\)/],
    [
      ['--teacher-performance', '0.8', '--competence-threshold', '-1'],
      /replay: --competence-threshold must be a finite number ≥ 0 \(got -1\)/,
    ],
    [['--teacher-performance', '0.8', '--epsilon', 'Infinity'], /replay: --epsilon must be a finite number/],
    [
      ['--teacher-performance', '0.8', '--schedule', 'never'],
      /replay: --schedule: expected one of adaptive, alignment-only, competence-only/,
    ],
    [['--teacher-performance', '0.8', '--format', 'xml'], /replay: --format: expected one of jsonl, verl, csv, trl/],
    [
      ['--teacher-performance', '0.8', '--window', '9007199254740993'],
      /^replay: --window: 9007199254740993 is beyond 9007199254740991, the largest exact integer$/,
    ],
    [['--teacher-performance', '0.8', '--bogus'], /replay: Unknown option '--bogus'/],
    [[], /replay: --teacher-performance is required/],
  ])('bad arguments %j → one line on stderr, exit 2', async (args, pattern) => {
    const run = await replay(`${fixtures}/simple.jsonl`, ...args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toMatch(pattern);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('joined files: steps that do not overlap are refused; a trigger past the last gap is a warning', async () => {
    const gaps = file('run-x-tag-gap.csv', 'Wall time,Step,Value\n0,1,-1\n0,2,-0.5\n0,3,-0.5\n0,4,-0.25\n');
    const far = file('run-x-tag-val.csv', 'Wall time,Step,Value\n0,100,0.5\n0,102,0.7\n');
    expectUserError(
      await replay(gaps, far, '--teacher-performance', '0.8', '--window', '2'),
      /run-x-tag-val\.csv:2: the validation steps \(100–102\) do not overlap the gap steps \(1–4/,
    );
    // W = 1: windows K = 1, .5, .5, .25; the validation at step 6 evaluates the 3rd (P = 0, C = 1) and retires.
    const late = file('run-y-tag-val.csv', 'Wall time,Step,Value\n0,2,0.5\n0,4,0.8\n0,6,0.8\n');
    const run = await replay(gaps, late, '--teacher-performance', '0.8', '--window', '1');
    expect(run.status).toBe(0);
    expect(run.stderr).toBe(
      'replay: warning: retired at step 6, after the last gap step 4: the validation file runs past the gap file ' +
        '(are both from the same run, and complete?)\n' +
        // the windows close every step, validations come every 2: the step-6 decision read window 3 (step 3)
        'replay: warning: 3 of 3 evaluations read a window that had closed before their validation (at step 6 the ' +
        'gate read window 3 (step 3), 3 steps old): windows close every W = 1 gaps but a validation comes every 2 ' +
        'gaps, and each validation evaluates the oldest window not yet evaluated, so unevaluated windows pile up. ' +
        'W = 2 (or a multiple: 4, 6) would evaluate each window at the validation that closes it.\n',
    );
    expect(summaryOf(run)).toMatchObject({
      trigger_step: 6,
      warnings: [expect.stringMatching(/^retired at step 6/), expect.stringMatching(/^3 of 3 evaluations/)],
    });
  });

  it('--format forces a parser: a jsonl file read as csv is reported at its line', async () => {
    expectUserError(
      await replay(`${fixtures}/simple.jsonl`, '--teacher-performance', '0.8', '--format', 'csv'),
      /simple\.jsonl:1: CSV: /,
    );
  });

  it('--help prints the usage and exits 0', async () => {
    const run = await replay('--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm run replay/);
  });
});
