import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayGate } from '../../../src/core/replay/gateReplay';
import { readRecordedRun } from '../../../src/core/runLog/recordedRunFiles';
import { SKIPPED_FLAG, SKIPPED_TOTAL, withSkippedFlag } from '../../../src/core/runLog/skippedTeacherForwards';
import type { MetricsLine } from '../../../src/core/runLog/trainerEvent';

const line = (step: number, extra: Record<string, number> = {}): MetricsLine => ({ step, ...extra });

describe('skipped teacher forwards in either spelling of the log', () => {
  it('reads a log written before the flag (the running count under the flag’s name) as flag and total', () => {
    const old = [0, 0, 1, 2, 3].map((count, i) => line(i + 1, { [SKIPPED_FLAG]: count }));
    const read = withSkippedFlag(old);
    expect(read.map((l) => l[SKIPPED_FLAG])).toEqual([0, 0, 1, 1, 1]);
    expect(read.map((l) => l[SKIPPED_TOTAL])).toEqual([0, 0, 1, 2, 3]);
    // the input is not changed
    expect(old[4]![SKIPPED_FLAG]).toBe(3);
  });

  it('takes lines that carry the total as they are, also after old lines (an old run resumed)', () => {
    const mixed = [
      line(1, { [SKIPPED_FLAG]: 0 }),
      line(2, { [SKIPPED_FLAG]: 1 }),
      line(3, { [SKIPPED_FLAG]: 1, [SKIPPED_TOTAL]: 2 }),
      line(4, { [SKIPPED_FLAG]: 1, [SKIPPED_TOTAL]: 3 }),
    ];
    const read = withSkippedFlag(mixed);
    expect(read.map((l) => [l[SKIPPED_FLAG], l[SKIPPED_TOTAL]])).toEqual([
      [0, 0],
      [1, 1],
      [1, 2],
      [1, 3],
    ]);
    expect(read[2]).toBe(mixed[2]);
  });

  it('continues from a count before the first line, and leaves lines without either key alone', () => {
    const read = withSkippedFlag(
      [line(11, { [SKIPPED_FLAG]: 10 }), line(12, { x: 1 }), line(13, { [SKIPPED_FLAG]: 11 })],
      10,
    );
    expect(read.map((l) => l[SKIPPED_FLAG])).toEqual([0, undefined, 1]);
    expect(read[1]).toEqual({ step: 12, x: 1 });
  });

  it('reads the shipped recording (written with the count) with the flag 1 exactly after its trigger step', () => {
    const dir = join(__dirname, '../../../public/demo/retire-shell');
    const names = ['config.json', 'metrics.jsonl', 'sft.jsonl', 'teacher.jsonl', 'events.jsonl', 'summary.json'];
    const files = Object.fromEntries(
      names.filter((n) => existsSync(join(dir, n))).map((n) => [n, readFileSync(join(dir, n), 'utf8')]),
    );
    const { run } = readRecordedRun('demo/retire-shell', files);
    const trigger = run.summary!.gate.triggerStep!;
    const student = run.steps.student;
    expect(student.filter((l) => l[SKIPPED_FLAG] === 1).map((l) => l.step)).toEqual(
      student.filter((l) => l.step > trigger).map((l) => l.step),
    );
    expect(student[student.length - 1]![SKIPPED_TOTAL]).toBe(run.summary!.gate.teacherForwardSkipped);
  });

  it('replays the same gate decisions over a log with the count and one with the flag', () => {
    const rows = (skipped: (k: number) => Record<string, number>) =>
      [
        { step: 1, gap: -1 },
        { step: 2, gap: -0.5, val: 0.5 },
        { step: 3, gap: 0, ...skipped(1) },
        { step: 4, gap: 0, val: 0.9, ...skipped(2) },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n');
    const options = { gate: { teacherPerformance: 0.8, windowSize: 2, competenceThreshold: 2 } };
    const counted = replayGate([{ name: 'old.jsonl', text: rows((k) => ({ [SKIPPED_FLAG]: k })) }], options);
    const flagged = replayGate(
      [{ name: 'new.jsonl', text: rows((k) => ({ [SKIPPED_FLAG]: 1, [SKIPPED_TOTAL]: k })) }],
      options,
    );
    expect(counted.summary).toMatchObject({ steps: 4, placeholder_gaps_ignored: 2 });
    expect(flagged.summary).toEqual(counted.summary);
  });
});
