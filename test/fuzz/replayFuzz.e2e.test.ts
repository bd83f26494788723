// Fuzzing `npm run replay` in-process (cli/replay.ts main called directly with in-memory files fed in uneven chunks,
// inside one child runner watched for stalls — see replayFuzzRunner.ts): a few hundred seeded bad or odd inputs. Every one must end in exactly one of two ways: exit 2 with one stderr line that names the
// file (and the line, where the case knows it) and shows no stack trace, raw control byte or long quote; or exit 0
// with a summary — the fixture's own trigger step for harmless variations. Never exit 1, a throw, or a hang.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { nodeIo, type ReplayIo } from '../../cli/replay';
import { printable } from '../../src/core/replay/quoteInput';
import { replayFuzzCases } from './replayCases';
import { BASES, type BaseName, type FuzzCase } from './replayFuzzBases';
import { memoryIo, type Outcome, runCase } from './replayFuzzRunner';
import { oracleTrigger } from './replayOracle';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const RUNNER = join(HERE, 'replayFuzzRunner.ts');

/** Fixed so the suite is reproducible; set REPLAY_FUZZ_SEED to explore other inputs. */
const SEED = Number(process.env.REPLAY_FUZZ_SEED ?? 13);
/** Time budget of one input: the largest (a 17 M-character line) takes well under a second on an idle machine; the
 *  margin is for a loaded one. */
const BUDGET_MS = 20_000;

/** Every case's outcome, from child runners (see replayFuzzRunner.ts); a case that stalls the runner for longer
 *  than BUDGET_MS is recorded as hung, the runner killed and restarted after it. */
async function runAll(seed: number, count: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  while (next < count) {
    const first = next;
    const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, String(seed), String(first), String(BUDGET_MS)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let current = first;
    let pending = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    const ended = await new Promise<'done' | 'stalled' | 'exited'>((done) => {
      let watchdog = setTimeout(() => done('stalled'), BUDGET_MS + 30_000); // + start-up
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        pending += chunk;
        let nl = pending.indexOf('\n');
        while (nl >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (line.startsWith('start ')) current = Number(line.slice(6));
          else if (line.startsWith('result ')) {
            const { i, ...outcome } = JSON.parse(line.slice(7)) as Outcome & { i: number };
            outcomes[i] = outcome;
            next = i + 1;
          } else if (line === 'done') done('done');
          clearTimeout(watchdog);
          watchdog = setTimeout(() => done('stalled'), BUDGET_MS);
          nl = pending.indexOf('\n');
        }
      });
      child.on('exit', () => setTimeout(() => done('exited'), 100));
    });
    if (ended !== 'done') {
      child.kill('SIGKILL');
      // The case running when the runner stalled or died: a hang or a crash of the whole process.
      outcomes[current] = { code: ended === 'stalled' ? 'hung' : 'threw', stdout: '', stderr: stderr.slice(-300) };
      next = current + 1;
    }
  }
  return outcomes;
}

const summaryOf = (stdout: string) => {
  const last = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as { type: string; trigger_step: number | null; gap_key: string; val_key: string };
};

type Verdict = 'refused' | 'accepted, correct' | 'crash' | 'hang' | 'silently wrong';

/** Judge one outcome; `problems` collects what a failing verdict was about. */
function judge(c: FuzzCase, o: Outcome, reference: number | null, problems: string[]): Verdict {
  const fail = (verdict: Verdict, why: string) => {
    problems.push(`${c.name}: ${why} (exit ${o.code}; stderr ${JSON.stringify(o.stderr.slice(0, 300))})`);
    return verdict;
  };
  if (o.code === 'hung') return fail('hang', `no answer within ${BUDGET_MS} ms`);
  if (o.code === 'threw' || o.code === 1 || /\n\s+at /.test(o.stderr)) return fail('crash', 'a throw or exit 1');
  if (o.code === 2) {
    const lines = o.stderr.replace(/\n$/, '').split('\n');
    const line = lines[0] ?? '';
    if (lines.length !== 1) return fail('crash', 'not exactly one stderr line');
    if (o.stdout !== '') return fail('crash', 'output on stdout with exit 2');
    if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(line)) return fail('crash', 'a raw control character');
    if (line.length > 400) return fail('crash', `a ${line.length}-character message`);
    if (c.expect.kind === 'reference') return fail('silently wrong', 'a valid variation was refused');
    const file = printable(c.expect.file);
    if (!line.includes(file)) return fail('crash', `the message does not name ${file}`);
    if (c.expect.kind === 'refuse' && c.expect.line !== undefined && !line.includes(`${file}:${c.expect.line}:`)) {
      return fail('silently wrong', `expected ${file}:${c.expect.line}:`);
    }
    return 'refused';
  }
  if (o.code !== 0) return fail('crash', `exit ${o.code}`);
  let summary;
  try {
    summary = summaryOf(o.stdout);
  } catch {
    return fail('crash', 'exit 0 without a summary line');
  }
  if (summary.type !== 'summary') return fail('crash', 'the last line is not the summary');
  if (c.expect.kind === 'refuse') return fail('silently wrong', 'accepted an input that must be refused');
  if (c.expect.kind === 'reference') {
    if (summary.trigger_step !== reference) {
      return fail('silently wrong', `trigger ${summary.trigger_step}, reference ${reference}`);
    }
    return 'accepted, correct';
  }
  // A damaged input that is still a log (cut at a line end, a line deleted, a digit changed): the answer must be
  // what a plain whole-text reading of the same content gives.
  let expected: number | null;
  try {
    const texts = c.files.map(([n, t]) => [n, typeof t === 'string' ? t : new TextDecoder().decode(t)] as const);
    expected = oracleTrigger(texts, c.args, summary.gap_key, summary.val_key);
  } catch (e) {
    return fail('silently wrong', `accepted, but a plain reading fails: ${(e as Error).message}`);
  }
  if (summary.trigger_step !== expected) {
    return fail('silently wrong', `trigger ${summary.trigger_step}, a plain reading gives ${expected}`);
  }
  return 'accepted, correct';
}

describe('replay fuzzing (seeded, in-process)', () => {
  /** Each unmodified fixture's replay: the reference answer of its valid variations (set up here, not by a test,
   *  so that every test can run alone or in any order). */
  const intact = new Map<BaseName, Outcome>();
  beforeAll(async () => {
    for (const [base, b] of Object.entries(BASES) as [BaseName, (typeof BASES)[BaseName]][]) {
      const out = { stdout: '', stderr: '' };
      intact.set(
        base,
        await runCase([...b.files.map(([n]) => n), ...b.args], memoryIo(b.files, 0, out), out, BUDGET_MS),
      );
    }
  });
  const referenceOf = (base: BaseName): number | null => summaryOf(intact.get(base)!.stdout).trigger_step;

  it('the unmodified fixtures replay to the trigger steps their README gives', () => {
    const expected: Record<BaseName, number | null> = { verl: 35, trl: null, tensorboard: 32, simple: 21, lab: 35 };
    for (const [base, b] of Object.entries(BASES) as [BaseName, (typeof BASES)[BaseName]][]) {
      const o = intact.get(base)!;
      expect(o.code, o.stderr).toBe(0);
      const summary = summaryOf(o.stdout);
      // The plain reading used to check damaged-but-accepted inputs agrees on every intact fixture.
      expect(oracleTrigger(b.files, b.args, summary.gap_key, summary.val_key), base).toBe(summary.trigger_step);
    }
    expect(Object.fromEntries(Object.keys(BASES).map((b) => [b, referenceOf(b as BaseName)]))).toEqual(expected);
  });

  it('never crashes, hangs or answers wrongly on a few hundred bad or odd inputs', async () => {
    const cases = replayFuzzCases(SEED);
    expect(cases.length).toBeGreaterThan(250);
    const tally = new Map<string, Map<Verdict, number>>();
    const problems: string[] = [];
    const outcomes = await runAll(SEED, cases.length);
    for (const [index, c] of cases.entries()) {
      const o = outcomes[index] ?? { code: 'threw', stdout: '', stderr: 'no outcome' };
      const verdict = judge(c, o, referenceOf(c.base), problems);
      const group = c.expect.kind === 'reference' ? 'valid variations' : 'bad input';
      const counts = tally.get(group) ?? new Map<Verdict, number>();
      counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
      tally.set(group, counts);
    }
    const table = [...tally].map(
      ([group, counts]) => `${group}: ${[...counts].map(([v, n]) => `${v} ${n}`).join(', ')}`,
    );
    console.log(`replay fuzz, seed ${SEED}, ${cases.length} inputs\n  ${table.join('\n  ')}`);
    expect(problems).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined(); // no prototype pollution from "__proto__" keys
  });

  it('refuses a missing file, a folder and a file name with a NUL through the real file system', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-fuzz-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'folder.jsonl'));
    writeFileSync(join(dir, 'ok.jsonl'), BASES.simple.files[0][1]);
    for (const [path, pattern] of [
      [join(dir, 'missing.jsonl'), /missing\.jsonl: no such file/],
      [join(dir, 'folder.jsonl'), /folder\.jsonl: is a folder/],
      [`${dir}/nul\u0000.jsonl`, /nul\\x00\.jsonl: cannot be read/],
    ] as const) {
      const out = { stdout: '', stderr: '' };
      const io: ReplayIo = { ...nodeIo, stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t) };
      const o = await runCase([path, ...BASES.simple.args], io, out, BUDGET_MS);
      expect(o.code, o.stderr).toBe(2);
      expect(o.stderr.trim().split('\n')).toHaveLength(1);
      expect(o.stderr).toMatch(pattern);
    }
    const out = { stdout: '', stderr: '' };
    const io: ReplayIo = { ...nodeIo, stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t) };
    const o = await runCase([join(dir, 'ok.jsonl'), ...BASES.simple.args], io, out, BUDGET_MS);
    expect(o.code).toBe(0);
    expect(summaryOf(o.stdout).trigger_step).toBe(21);
  });
});
