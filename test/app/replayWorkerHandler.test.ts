import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, runReplay, type ReplaySettings } from '../../src/app/replay/replayModel';
import { createReplayWorkerHandler } from '../../src/app/worker/replayWorkerHandler';
import type { ReplayWorkerResponse } from '../../src/app/replay/replayWorkerProtocol';
import { main } from '../../cli/replay';
import { ROOT } from './appServer';

const FIXTURES = join(ROOT, 'test/fixtures/replay');
const text = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const settings = (over: Partial<ReplaySettings>): ReplaySettings => ({ ...DEFAULT_SETTINGS, ...over });

/** A handler whose clock advances 1 ms per call, and the messages it posted. */
function handler() {
  const posted: ReplayWorkerResponse[] = [];
  let t = 0;
  const h = createReplayWorkerHandler(
    (m) => posted.push(m),
    () => (t += 1),
  );
  return { h, posted };
}

describe('the replay worker’s logic', () => {
  it('streams a verl log through the core replay and answers what the whole-text replay gives', async () => {
    const { h, posted } = handler();
    const verl = text('verl_retire_opd.jsonl');
    const s = settings({ teacherPerformance: '0.8' });
    await h.handle({ type: 'replay', id: 7, files: [{ name: 'verl.jsonl', blob: new Blob([verl]) }], settings: s });
    const done = posted.at(-1);
    expect(done?.type).toBe('done');
    expect(done).toEqual({ type: 'done', id: 7, outcome: runReplay([{ name: 'verl.jsonl', text: verl }], s) });
    const bytes = new Blob([verl]).size;
    expect(posted[0]).toEqual({ type: 'progress', id: 7, bytesRead: 0, totalBytes: bytes });
    expect(posted.at(-2)).toEqual({ type: 'progress', id: 7, bytesRead: bytes, totalBytes: bytes });
  });

  it('joins two CSV exports in order and names FILE:LINE of a bad line as the CLI does', async () => {
    const { h, posted } = handler();
    const files = ['run-grpo_opd-tag-skillsd_teacher_student_gap_mean.csv', 'run-grpo_opd-tag-val_success_rate.csv'];
    const s = settings({ teacherPerformance: '0.75', windowSize: '4' });
    await h.handle({
      type: 'replay',
      id: 1,
      files: files.map((n) => ({ name: n, blob: new Blob([text(n)]) })),
      settings: s,
    });
    const whole = runReplay(
      files.map((n) => ({ name: n, text: text(n) })),
      s,
    );
    expect(posted.at(-1)).toEqual({ type: 'done', id: 1, outcome: whole });

    const bad = '{"step":1,"gap":-0.5,"val":0.1}\n{"step":2,"gap":oops}\n';
    await h.handle({ type: 'replay', id: 2, files: [{ name: 'bad.jsonl', blob: new Blob([bad]) }], settings: s });
    const out = posted.at(-1);
    expect(out).toMatchObject({ type: 'done', id: 2, outcome: { ok: false, failure: { kind: 'input', line: 2 } } });
    expect(out).toEqual({ type: 'done', id: 2, outcome: runReplay([{ name: 'bad.jsonl', text: bad }], s) });
  });

  it('says nothing more about a replay cancelled while it streams', async () => {
    const { h, posted } = handler();
    const big = '{"step":1,"gap":-0.5,"val":0.1}\n'.repeat(20_000); // several 64 KiB stream chunks
    const going = h.handle({
      type: 'replay',
      id: 3,
      files: [{ name: 'big.jsonl', blob: new Blob([big]) }],
      settings: settings({ teacherPerformance: '0.8' }),
    });
    await h.handle({ type: 'cancel', id: 3 });
    await going;
    expect(posted.filter((m) => m.type !== 'progress')).toEqual([]);
  });

  it.each([
    // the log holds 准确率 (accuracy) as its validation score, not the 成功率 (success rate) asked for
    ['an absent non-ASCII validation key', '--val-key', '成功率', { valKey: '成功率' }, 'gap', '准确率'],
    // the log holds точность (accuracy) per step, not the ошибка (error) asked for as the gap
    ['an absent non-ASCII gap key', '--gap-key', 'ошибка', { gapKey: 'ошибка' }, 'точность', 'val'],
  ])('matches %s exactly as npm run replay does (one core function)', async (_what, flag, key, over, gap, val) => {
    const log = Array.from(
      { length: 30 },
      (_, k) => `{"step":${k + 1},"${gap}":${-0.5 + k / 100}${k % 5 === 4 ? `,"${val}":${0.1 + k / 40}` : ''}}`,
    ).join('\n');
    let stdout = '';
    let stderr = '';
    const status = await main(['keys.jsonl', '--teacher-performance', '0.8', flag, key], {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      readLog: async function* () {
        yield log;
      },
    });
    const { h, posted } = handler();
    const s = settings({ teacherPerformance: '0.8', ...over });
    await h.handle({ type: 'replay', id: 9, files: [{ name: 'keys.jsonl', blob: new Blob([log]) }], settings: s });
    const out = posted.at(-1);
    if (out?.type !== 'done') throw new Error(`no outcome: ${JSON.stringify(out)}`);
    if (status === 0) {
      if (!out.outcome.ok) throw new Error(`the tab refused what the CLI replayed: ${out.outcome.failure.message}`);
      expect(JSON.stringify(out.outcome.result.summary)).toBe(stdout.trim().split('\n').pop());
    } else {
      expect(out.outcome.ok).toBe(false);
      const wording = (m: string) =>
        m.replace(/--gap-key/g, 'the gap key field').replace(/--val-key/g, 'the validation key field');
      expect(out.outcome.ok ? '' : out.outcome.failure.message).toBe(wording(stderr.trim()));
    }
  });
});
