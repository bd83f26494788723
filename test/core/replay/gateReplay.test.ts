import { describe, expect, it } from 'vitest';
import {
  GateReplayReader,
  replayGate,
  replayGateStream,
  replayLines,
  replayTextBlocks,
} from '../../../src/core/replay/gateReplay';
import { ReplayInputError } from '../../../src/core/replay/logRecords';

const gate = { teacherPerformance: 0.8, windowSize: 2 };
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n');

// The hand-computed stream of the gate tests (W = 2): windows .75 @2, .375 @4, .375 @6 → retires at step 6.
const rows = [
  { step: 1, gap: -1 },
  { step: 2, gap: -0.5, val: 0.5 },
  { step: 3, gap: -0.5 },
  { step: 4, gap: -0.25, val: 0.7 },
  { step: 5, gap: -0.25 },
  { step: 6, gap: -0.5, val: 0.76 },
  { step: 7, gap: -0.5 },
  { step: 8, gap: -0.25, val: 0.8 },
];

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
}

describe('replayGate', () => {
  it('replays a jsonl log: evaluations with NaN as null, then the summary', () => {
    const result = replayGate([{ name: 'run.jsonl', text: jsonl(rows) }], { gate });
    const lines = replayLines(result).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatchObject({ type: 'evaluation', step: 2, window_index: 1, k_window_mean: 0.75 });
    expect(lines[0]?.alignment_progress).toBeNull();
    expect(lines[0]?.competence_ratio).toBeNull();
    expect(lines[2]).toMatchObject({ step: 6, alignment_progress: 0, retired: true });
    expect(Object.keys(lines[0] ?? {}).slice(0, 8)).toEqual([
      'type',
      'step',
      'window_index',
      'k_window_mean',
      'alignment_progress',
      'competence_ratio',
      'criterion_valid',
      'retired',
    ]);
    expect(lines[3]).toMatchObject({
      type: 'summary',
      retired: true,
      trigger_step: 6,
      windows: 3,
      evaluations: 3,
      teacher_forward_steps_saved: 2,
      format: 'jsonl',
      gap_key: 'gap',
      val_key: 'val',
      steps: 8,
      validations: 4,
    });
    expect(lines[3]).not.toHaveProperty('agrees_with_log');
  });

  it('observes a step gap before its validation even when the validation comes first in the file', () => {
    const swapped = [
      { step: 1, gap: -1 },
      { step: 2, val: 0.5 },
      { step: 2, gap: -0.5 },
    ];
    const result = replayGate([{ name: 'a.jsonl', text: jsonl(swapped) }], { gate });
    expect(result.evaluations).toHaveLength(1);
    expect(result.evaluations[0]?.window_index).toBe(1);
  });

  it('joins several files on the step and reports agreement with the log own trigger', () => {
    const gaps = rows.map((r) => ({ step: r.step, gap: r.gap }));
    const vals = rows
      .filter((r) => r.val !== undefined)
      .map((r) => ({ step: r.step, val: r.val, 'retire_opd/trigger_step': r.step >= 6 ? 6 : -1 }));
    const result = replayGate(
      [
        { name: 'gaps.jsonl', text: jsonl(gaps) },
        { name: 'vals.jsonl', text: jsonl(vals) },
      ],
      { gate },
    );
    expect(result.summary).toMatchObject({ trigger_step: 6, log_trigger_step: 6, agrees_with_log: true });
    const never = vals.map((v) => ({ ...v, 'retire_opd/trigger_step': -1 }));
    const disagree = replayGate(
      [
        { name: 'gaps.jsonl', text: jsonl(gaps) },
        { name: 'vals.jsonl', text: jsonl(never) },
      ],
      { gate },
    );
    expect(disagree.summary).toMatchObject({ log_trigger_step: null, agrees_with_log: false });
  });

  it('ignores post-retirement placeholder gaps of the logged run and counts them', () => {
    // The logged run retired at step 2 (skip flag from step 3 on, gap 0 placeholders); the replay with γ = 2 would
    // not have retired, so it needs gaps the log does not hold.
    const log = [
      { step: 1, gap: -1 },
      { step: 2, gap: -0.5, val: 0.5 },
      { step: 3, gap: 0, 'retire_opd/teacher_forward_skipped': 1 },
      { step: 4, gap: 0, 'retire_opd/teacher_forward_skipped': 1, val: 0.9 },
    ];
    const result = replayGate([{ name: 'a.jsonl', text: jsonl(log) }], { gate: { ...gate, competenceThreshold: 2 } });
    expect(result.summary).toMatchObject({ windows: 1, steps: 4, placeholder_gaps_ignored: 2 });
  });

  it('runs the alignment-only and competence-only schedules', () => {
    const text = jsonl(rows);
    const alignment = replayGate([{ name: 'a', text }], {
      gate: { ...gate, competenceThreshold: 5 },
      schedule: 'alignment-only',
    });
    expect(alignment.summary.trigger_step).toBe(6);
    const competence = replayGate([{ name: 'a', text }], {
      gate: { ...gate, alignmentThreshold: -1 },
      schedule: 'competence-only',
    });
    expect(competence.summary.trigger_step).toBe(6);
    const adaptive = replayGate([{ name: 'a', text }], { gate: { ...gate, alignmentThreshold: -1 } });
    expect(adaptive.summary.trigger_step).toBeNull();
  });

  it.each([
    ['{"step":1,"gap":-0.5}\n{"step":2,"gap":', 'a.jsonl:2: not valid JSON'],
    ['{"step":1,"gap":NaN,"val":0.5}', 'a.jsonl:1: step 1: gap "gap" is not finite: NaN'],
    ['{"step":1,"gap":-0.5,"val":Infinity}', 'a.jsonl:1: step 1: validation score "val" is not finite: Infinity'],
    ['{"step":1,"gap":"x","val":0.5}', 'a.jsonl:1: step 1: gap "gap" is not a number: "x"'],
    ['{"step":1,"gap":-1}\n\n{"gap":-1}', 'a.jsonl:3: missing step'],
    ['{"step":1.5,"gap":-1}', 'a.jsonl:1: step must be a non-negative integer, got 1.5'],
    ['{"step":2,"gap":-1}\n{"step":1,"gap":-1}', 'a.jsonl:2: step 1 is out of order (after step 2)'],
    [
      '{"step":1,"gap":-1,"val":0.5}\n{"step":1,"gap":-2}',
      'a.jsonl:2: step 1 has a second gap (the first is at a.jsonl:1)',
    ],
    ['[1,2]', 'a.jsonl:1: expected a JSON object on each line'],
    ['  \n', 'a.jsonl:1: empty file'],
    ['{"step":1,"loss":2}', 'a.jsonl:1: no teacher-student gap found (looked for gap, opd/teacher_student_gap_mean'],
  ])('reports bad input %j as %s', (text, message) => {
    expect(errorOf(() => replayGate([{ name: 'a.jsonl', text }], { gate }))).toContain(message);
  });

  it('names an unknown --gap-key / --val-key and lists the keys the log has', () => {
    const text = jsonl(rows);
    expect(errorOf(() => replayGate([{ name: 'a.jsonl', text }], { gate, gapKey: 'kl' }))).toBe(
      'a.jsonl:1: --gap-key "kl" is not a key of this log (keys: gap, val)',
    );
    expect(errorOf(() => replayGate([{ name: 'a.jsonl', text }], { gate, valKey: 'acc' }))).toMatch(/--val-key "acc"/);
  });

  it('accepts other keys named with --gap-key and --val-key', () => {
    const text = jsonl(
      rows.map((r) => ({ step: r.step, 'my/gap': r.gap, ...(r.val === undefined ? {} : { 'my/acc': r.val }) })),
    );
    const result = replayGate([{ name: 'a', text }], { gate, gapKey: 'my/gap', valKey: 'my/acc' });
    expect(result.summary.trigger_step).toBe(6);
  });

  it('rejects a bad gate config before reading the log', () => {
    expect(() => replayGate([{ name: 'a', text: '' }], { gate: { teacherPerformance: 0 } })).toThrow(
      /teacherPerformance/,
    );
    expect(() => replayGate([{ name: 'a', text: '' }], { gate: { teacherPerformance: 1, windowSize: 0 } })).toThrow(
      /windowSize must be a positive integer/,
    );
  });

  it('throws ReplayInputError carrying the file and line', () => {
    try {
      replayGate([{ name: 'x.jsonl', text: '{"step":1,"gap":-1}\nnope' }], { gate });
    } catch (e) {
      expect(e).toBeInstanceOf(ReplayInputError);
      expect((e as ReplayInputError).line).toBe(2);
      expect((e as ReplayInputError).file).toBe('x.jsonl');
      return;
    }
    throw new Error('expected an error');
  });
});

describe('replayGate on joined files and odd input', () => {
  const gapsOf = (shift: number) => jsonl(rows.map((r) => ({ step: r.step + shift, gap: r.gap })));
  const valsOf = (shift: number) =>
    jsonl(rows.filter((r) => r.val !== undefined).map((r) => ({ step: r.step + shift, val: r.val })));

  it('refuses joined files whose validation steps lie wholly outside the gap steps', () => {
    expect(
      errorOf(() =>
        replayGate(
          [
            { name: 'gaps.jsonl', text: gapsOf(0) },
            { name: 'vals.jsonl', text: valsOf(100) },
          ],
          { gate },
        ),
      ),
    ).toBe(
      'vals.jsonl:1: the validation steps (102–108) do not overlap the gap steps (1–8, gaps.jsonl): joined files ' +
        'must come from the same run and range of steps',
    );
  });

  it('warns in the summary when a join retires after its last gap step', () => {
    // Validations shifted by 3: the window of steps 1–6 is evaluated at step 9, after the last gap (8).
    const result = replayGate(
      [
        { name: 'gaps.jsonl', text: gapsOf(0) },
        { name: 'vals.jsonl', text: valsOf(3) },
      ],
      { gate },
    );
    expect(result.summary.trigger_step).toBe(9);
    expect(result.summary.warnings?.[0]).toBe(
      'retired at step 9, after the last gap step 8: the validation file runs past the gap file (are both from ' +
        'the same run, and complete?)',
    );
    // and the shift made every evaluation read a window that had closed 3 steps before (windowCadence.ts)
    expect(result.summary.warnings?.[1]).toMatch(/^4 of 4 evaluations read a window .*, 3 steps old\)/);
    expect(replayGate([{ name: 'a.jsonl', text: jsonl(rows) }], { gate }).summary).not.toHaveProperty('warnings');
  });

  it('refuses two columns that both match a key after normalisation in one row', () => {
    const text = jsonl(rows.map((r) => ({ step: r.step, Gap: r.gap, GAP: r.gap, val: r.val })));
    expect(errorOf(() => replayGate([{ name: 'a.jsonl', text }], { gate }))).toBe(
      'a.jsonl:1: two columns match "gap" ("Gap", "GAP"): name one with --gap-key',
    );
  });

  it('refuses an implausibly large gap instead of averaging it into an infinite window', () => {
    const text = jsonl([{ step: 1, gap: -1e300, val: 0.5 }]);
    expect(errorOf(() => replayGate([{ name: 'a.jsonl', text }], { gate }))).toBe(
      'a.jsonl:1: step 1: gap "gap" is implausibly large: -1e+300 (|value| ≤ 1000000000000 expected)',
    );
  });

  it('streams: chunks of any size replay exactly as the whole text does', async () => {
    const text = `\uFEFF${jsonl(rows).replace(/\n/g, '\r\n')}`;
    const whole = replayGate([{ name: 'a.jsonl', text }], { gate });
    for (const size of [1, 3, 64]) {
      const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
        text.slice(i * size, (i + 1) * size),
      );
      expect(await replayGateStream([{ name: 'a.jsonl', chunks }], { gate })).toEqual(whole);
    }
    expect(whole.summary.trigger_step).toBe(6);
  });

  it('prints the same lines in blocks as replayLines gives', () => {
    const result = replayGate([{ name: 'a.jsonl', text: jsonl(rows) }], { gate });
    const blocks = [...replayTextBlocks(result, 100)];
    expect(blocks.length).toBeGreaterThan(1);
    expect(blocks.join('')).toBe(`${replayLines(result).join('\n')}\n`);
  });
});

describe('replayGate: keys, formats and placeholders', () => {
  // The hand-computed stream above under other names: the trigger stays at step 6 when the keys are matched.
  const renamed = (gapKey: string, valKey: string) =>
    jsonl(rows.map((r) => ({ step: r.step, [gapKey]: r.gap, ...(r.val === undefined ? {} : { [valKey]: r.val }) })));

  it('refuses an absent non-ASCII --val-key or --gap-key instead of matching another key of the same script', () => {
    const chinese = renamed('差距', '准确率');
    expect(
      errorOf(() => replayGate([{ name: 'a.jsonl', text: chinese }], { gate, gapKey: '差距', valKey: '成功率' })),
    ).toBe('a.jsonl:1: --val-key "成功率" is not a key of this log (keys: 差距, 准确率)');
    const russian = renamed('разрыв', 'точность');
    expect(
      errorOf(() => replayGate([{ name: 'a.jsonl', text: russian }], { gate, gapKey: 'ошибка', valKey: 'точность' })),
    ).toBe('a.jsonl:1: --gap-key "ошибка" is not a key of this log (keys: разрыв, точность)');
  });

  it('matches keys after NFC, "/" ≡ "_" and case folding, and names the key that was asked for', () => {
    const text = renamed('Écart/Moyen', 'ТОЧНОСТЬ');
    // "e" + combining acute (NFD) asks for the composed "É" of the log.
    const result = replayGate([{ name: 'a.jsonl', text }], { gate, gapKey: 'e\u0301cart_moyen', valKey: 'точность' });
    expect(result.summary).toMatchObject({ trigger_step: 6, gap_key: 'e\u0301cart_moyen', val_key: 'точность' });
    // "-" is not "_": nothing but "/" and case is equated.
    expect(errorOf(() => replayGate([{ name: 'a.jsonl', text }], { gate, gapKey: 'écart-moyen' }))).toMatch(
      /--gap-key "écart-moyen" is not a key of this log/,
    );
  });

  it('refuses a flat JSON-lines file whose later lines are verl lines, naming the line', () => {
    const text = '{"step":1,"gap":-1,"val":0.5}\n{"step":2,"data":{"gap":-0.5,"val":0.6}}\n';
    expect(errorOf(() => replayGate([{ name: 'a.jsonl', text }], { gate }))).toBe(
      'a.jsonl:2: a verl file-logger line {"step": k, "data": {...}}, but line 1 is a flat JSON line: ' +
        'one format per file',
    );
  });

  it('refuses a verl file whose later lines are flat, naming the line', () => {
    const text =
      '{"step":1,"data":{"skillsd/teacher_student_gap_mean":-1}}\n\n{"step":2,"skillsd/teacher_student_gap_mean":-1}\n';
    expect(errorOf(() => replayGate([{ name: 'v.jsonl', text }], { gate }))).toBe(
      'v.jsonl:3: a flat JSON line, but line 1 is a verl file-logger line {"step": k, "data": {...}}: one format per file',
    );
  });

  it('ignores a NaN gap logged after the replay has retired the teacher (a placeholder the gate does not read)', () => {
    const log = rows.map((r) => (r.step === 7 ? { ...r, gap: 'NaN' } : r));
    const text = jsonl(log).replace('"NaN"', 'NaN');
    const result = replayGate([{ name: 'a.jsonl', text }], { gate });
    expect(result.summary).toMatchObject({ trigger_step: 6, steps: 8, teacher_forward_steps_saved: 2 });
  });

  it('ignores a NaN gap at a step where the logged run had retired, and refuses one before', () => {
    const log = [
      '{"step":1,"gap":-1}',
      '{"step":2,"gap":-0.5,"val":0.5}',
      '{"step":3,"gap":NaN,"retire_opd/teacher_forward_skipped":1}',
      '{"step":4,"gap":NaN,"retire_opd/teacher_forward_skipped":2,"val":0.9}',
    ].join('\n');
    const result = replayGate([{ name: 'a.jsonl', text: log }], { gate: { ...gate, competenceThreshold: 2 } });
    expect(result.summary).toMatchObject({ steps: 4, placeholder_gaps_ignored: 2 });
    const before = log.replace('"gap":-0.5', '"gap":NaN');
    expect(errorOf(() => replayGate([{ name: 'a.jsonl', text: before }], { gate }))).toBe(
      'a.jsonl:2: step 2: gap "gap" is not finite: NaN',
    );
  });
});

describe('GateReplayReader (the push API the CLI and the tab share)', () => {
  it('replays UTF-8 bytes pushed in any pieces, multi-byte characters and a BOM split, as the text replays', () => {
    const text = `\uFEFF${jsonl(rows.map((r) => ({ step: r.step, 'разрыв/gap': r.gap, ...(r.val === undefined ? {} : { 成功率: r.val }) })))}`;
    const options = { gate, gapKey: 'разрыв_gap', valKey: '成功率' };
    const whole = replayGate([{ name: 'a.jsonl', text }], options);
    expect(whole.summary.trigger_step).toBe(6);
    const bytes = new TextEncoder().encode(text);
    for (const size of [1, 2, 5]) {
      const reader = new GateReplayReader(options);
      const file = reader.openFile('a.jsonl');
      for (let i = 0; i < bytes.length; i += size) file.push(bytes.subarray(i, i + size));
      file.end();
      expect(reader.finish()).toEqual(whole);
    }
  });

  it('joins several files pushed one after the other, and refuses bad input naming the file and line', () => {
    const reader = new GateReplayReader({ gate });
    const gaps = reader.openFile('gaps.jsonl');
    gaps.push(jsonl(rows.map((r) => ({ step: r.step, gap: r.gap }))));
    gaps.end();
    const vals = reader.openFile('vals.jsonl');
    vals.push(jsonl(rows.filter((r) => r.val !== undefined).map((r) => ({ step: r.step, val: r.val }))));
    vals.end();
    expect(reader.finish().summary).toMatchObject({ trigger_step: 6, steps: 8, validations: 4 });
    const bad = new GateReplayReader({ gate }).openFile('bad.jsonl');
    // a small file is parsed once its head is complete: at the latest, at end()
    bad.push('{"step":1,"gap":-1}\n{"step":0,"gap":-1}\n');
    expect(() => bad.end()).toThrow('bad.jsonl:2: step 0 is out of order (after step 1)');
  });

  it('refuses a row of more than 10,000 metrics with FILE:LINE, in JSON lines and in verl lines', () => {
    const wide = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`metric/k${i}`, i]));
    const flat = `${jsonl(rows.slice(0, 2))}\n${JSON.stringify({ step: 3, ...wide })}\n`;
    expect(errorOf(() => replayGate([{ name: 'w.jsonl', text: flat }], { gate }))).toBe(
      "w.jsonl:3: more than 10000 metrics on one row, at most 10000 (not a training log's row: keep the metrics the gate reads)",
    );
    const verl = `${JSON.stringify({ step: 1, data: { gap: 0.1 } })}\n${JSON.stringify({ step: 2, data: wide })}\n`;
    expect(errorOf(() => replayGate([{ name: 'v.jsonl', text: verl }], { gate, format: 'verl' }))).toMatch(
      /^v\.jsonl:2: more than 10000 metrics on one row/,
    );
    // exactly 10,000 are read
    const tenThousand = Object.fromEntries(Object.entries(wide).slice(0, 10_000));
    const ok = `${jsonl(rows)}\n${JSON.stringify({ step: 99, ...tenThousand })}\n`;
    expect(() => replayGate([{ name: 'ok.jsonl', text: ok }], { gate })).not.toThrow();
  });
});
