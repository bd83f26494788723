import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../src/core/experiment/config';
import { compareRuns, formatComparisonTable } from '../../src/core/experiment/comparison';
import {
  comparisonCsv,
  comparisonMarkdown,
  comparisonMarkdownFile,
  identicalUntil,
  groupByPoint,
  comparisonCells,
  meanBand,
  pointOf,
  variedKeys,
} from '../../src/app/runs/comparison';
import type { RunRecord } from '../../src/app/runs/runRecord';
import { freshRecord } from './runRecordFixtures';
import { CONFIG, summary } from './runFixtures';

function record(
  id: string,
  overrides: string[],
  seed: number,
  success: number,
  extra: Partial<RunRecord> = {},
): RunRecord {
  const config = applyOverrides({ ...CONFIG, seed }, overrides);
  const s = { ...summary('completed', 10), seed };
  return {
    ...freshRecord(id),
    createdAt: Number(id.replace(/\D/g, '')),
    updatedAt: 0,
    overrides,
    seed,
    backend: 'wasm',
    config,
    status: 'completed',
    stage: 'evaluation',
    triggerStep: 10,
    summary: { ...s, test: { ...s.test, successRate: success }, wallSeconds: 10 + seed },
    ...extra,
  };
}

describe('comparing stored runs', () => {
  const runs = [
    record('r1', ['student.schedule=never'], 0, 0.5),
    record('r2', [], 0, 0.25),
    record('r3', ['student.schedule=never'], 1, 0.75),
    record('r4', [], 1, 0.5),
  ];

  it('finds the varied key (not the seed) and each run’s point', () => {
    expect(variedKeys(runs)).toEqual(['student.schedule']);
    expect(pointOf(runs[0]!, ['student.schedule'])).toEqual({ 'student.schedule': 'never' });
    expect(pointOf({ ...runs[0]!, point: { 'x.y': 1 } }, ['student.schedule'])).toEqual({ 'x.y': 1 });
    expect(groupByPoint(runs, ['student.schedule']).map((g) => [g.label, g.runs.map((r) => r.id)])).toEqual([
      ['student.schedule=never', ['r1', 'r3']],
      ['student.schedule=adaptive', ['r2', 'r4']],
    ]);
  });

  it('writes the same Markdown table as the sweep CLI for the same summaries and points', () => {
    const expected = formatComparisonTable(
      compareRuns([
        { point: { 'student.schedule': 'never' }, summary: runs[0]!.summary! },
        { point: { 'student.schedule': 'adaptive' }, summary: runs[1]!.summary! },
        { point: { 'student.schedule': 'never' }, summary: runs[2]!.summary! },
        { point: { 'student.schedule': 'adaptive' }, summary: runs[3]!.summary! },
      ]),
    );
    expect(comparisonMarkdown(runs)).toBe(expected);
    // never: 50 %, 75 % → mean 62.5, sample std 17.68, 95 % interval t(0.975, 1) · 17.68 / √2 = 158.8;
    // adaptive: 25 %, 50 % → 37.5 ± 158.8; no validation curves → no step reaches 0.9·S_T (–, –)
    expect(expected).toContain('| never | 2 | 62.5 ± 158.8 | –, – | 10, 10 | 10.0 | 10.5 |');
    expect(expected).toContain('| adaptive | 2 | 37.5 ± 158.8 | –, – | 10, 10 | 10.0 | 10.5 |');
  });

  it('counts steps to 0.9·S_T from the runs’ validation curves, a run without S_T measured against its env’s', () => {
    // S_T 0.8 on the adaptive runs, none on the never runs (as pure GRPO): their yardstick is the env's mean, 0.8
    const st = (r: RunRecord, t: number | null): RunRecord => ({
      ...r,
      summary: { ...r.summary!, teacherPerformance: t },
    });
    const withSt = [st(runs[0]!, null), st(runs[1]!, 0.8), st(runs[2]!, null), st(runs[3]!, 0.8)];
    // 0.9 · 0.8 = 0.72: reached at step 10 by r1, 20 by r2, never by r3 (0.71), 5 by r4
    const curve = (pts: [number, number][]) => pts.map(([step, score]) => ({ step, score }));
    const curves = new Map([
      [
        'r1',
        curve([
          [5, 0.5],
          [10, 0.75],
        ]),
      ],
      [
        'r2',
        curve([
          [10, 0.7],
          [20, 0.73],
        ]),
      ],
      [
        'r3',
        curve([
          [5, 0.1],
          [10, 0.71],
        ]),
      ],
      ['r4', curve([[5, 0.9]])],
    ]);
    const { rows } = comparisonCells(withSt, curves);
    expect(rows[0]!.slice(0, 1).concat(rows[0]![3]!)).toEqual(['never', '10, –']);
    expect(rows[1]!.slice(0, 1).concat(rows[1]![3]!)).toEqual(['adaptive', '20, 5']);
  });

  it('keeps a queue’s order (its runs by queue place), and leaves out runs without a summary', () => {
    const q = [
      record('r9', ['student.schedule=never'], 0, 0.5, {
        queueId: 'q',
        queueIndex: 1,
        point: { 'student.schedule': 'never' },
      }),
      record('r8', [], 0, 0.25, { queueId: 'q', queueIndex: 0, point: { 'student.schedule': 'adaptive' } }),
      record('r7', [], 3, 0.25, { summary: null, status: 'failed' }),
    ];
    const table = comparisonCells(q);
    expect([table.header[0], ...table.rows.map((r) => r[0])]).toEqual(['student.schedule', 'adaptive', 'never']);
  });

  it('gives the table as CSV in numeric columns: mean, std, n, the interval, one column per seed', () => {
    const csv = comparisonCsv(runs).split(/\r?\n/);
    expect(csv[0]).toBe(
      'student.schedule,n,test_success_mean,test_success_std,test_success_ci95_lo,test_success_ci95_hi,' +
        'steps_to_target_seed0,steps_to_target_seed1,trigger_step_seed0,trigger_step_seed1,' +
        'teacher_forwards_saved_mean,wall_s_mean',
    );
    // never: 0.5, 0.75 → mean 0.625, std 0.125·√2 = 0.176777, half-width 12.706 · 0.176777 / √2 = 1.58825;
    // no curve reaches 0.9·S_T (empty cells); both seeds retired at 10; wall 10 and 11 s
    expect(csv[1]).toBe('never,2,0.625,0.176777,-0.96325,2.21325,,,10,10,10,10.5');
    expect(csv[2]).toBe('adaptive,2,0.375,0.176777,-1.21325,1.96325,,,10,10,10,10.5');
    // a single seed has no interval, and a seed a point lacks is an empty cell
    const one = comparisonCsv([runs[0]!, runs[1]!, runs[3]!]).split(/\r?\n/);
    expect(one[1]).toBe('never,1,0.5,0,,,,,10,,10,10');
    expect(one[2]).toBe('adaptive,2,0.375,0.176777,-1.21325,1.96325,,,10,10,10,10.5');
  });

  it('writes a text cell that a spreadsheet would run as a formula as quoted text, and keeps negative numbers numbers', () => {
    const hostile = [
      record('r1', [], 0, 0.5, { point: { name: "=cmd|' /C calc'!A0", 'student.lambdaOpd': '=1+2' } }),
      record('r2', [], 0, 0.25, { point: { name: '-2+3', 'student.lambdaOpd': '@SUM(A1)\n=1' } }),
      record('r3', [], 0, 0.75, { point: { name: 'plain', 'student.lambdaOpd': -0.5 } }),
    ];
    const rows = Papa.parse<string[]>(comparisonCsv(hostile)).data;
    expect(rows[0]!.slice(0, 2)).toEqual(['name', 'student.lambdaOpd']);
    // OWASP: a leading ' makes the cell text; papaparse's own pattern would miss the one with a line break
    expect(rows[1]!.slice(0, 2)).toEqual(["'=cmd|' /C calc'!A0", "'=1+2"]);
    expect(rows[2]!.slice(0, 2)).toEqual(["'-2+3", "'@SUM(A1)\n=1"]);
    // a number cell stays a number: the axis value −0.5 (the interval's negative ends are numbers too, test above)
    expect(rows[3]!.slice(0, 3)).toEqual(['plain', '-0.5', '1']);
    const raw = comparisonCsv(hostile).split(/\r\n/);
    expect(raw[1]!.startsWith(`"'=cmd|' /C calc'!A0","'=1+2",1,0.5`)).toBe(true);
    expect(raw.at(-1)!.startsWith('plain,-0.5,1,0.75')).toBe(true);
  });

  it('writes Markdown with user text as literal text: no HTML, code spans, links or extra table cells', () => {
    const hostile = [
      record('r1', [], 0, 0.5, { point: { name: '<img src=x onerror=alert(1)>' } }),
      record('r2', [], 0, 0.25, { point: { name: '[a](javascript:x) `b` | c & d' } }),
    ];
    const md = comparisonMarkdown(hostile).split('\n');
    expect(md[2]!.startsWith('| &lt;img src=x onerror=alert(1)&gt; | 1 |')).toBe(true);
    expect(md[3]!.startsWith('| \\[a\\](javascript:x) \\`b\\` \\| c &amp; d | 1 |')).toBe(true);
    const file = comparisonMarkdownFile(hostile, undefined, () => 'A <b>bold</b> [claim]');
    expect(file.split('\n').slice(0, 3)).toEqual([
      `# Sweep ${hostile[0]!.preset}`,
      '',
      'A &lt;b&gt;bold&lt;/b&gt; \\[claim\\]',
    ]);
  });

  it('writes comparison.md as the sweep CLI does: heading, the preset’s description, the table', () => {
    const file = comparisonMarkdownFile(runs, undefined, (name) => (name === runs[0]!.preset ? 'What it is.' : null));
    expect(file).toBe(`# Sweep ${runs[0]!.preset}\n\nWhat it is.\n\n${comparisonMarkdown(runs)}\n`);
  });

  it('finds where two series stop being identical', () => {
    const a = [
      { x: 1, y: 0.5 },
      { x: 2, y: 0.5 },
      { x: 3, y: 0.7 },
    ];
    expect(identicalUntil(a, [a[0]!, a[1]!, { x: 3, y: 0.6 }])).toEqual({ until: 2, whole: false });
    expect(identicalUntil(a, [...a])).toEqual({ until: 3, whole: true });
    expect(identicalUntil(a, [{ x: 1, y: 0.4 }])).toBeNull();
    expect(identicalUntil(a, a.slice(0, 2))).toEqual({ until: 2, whole: false });
  });

  it('draws mean ± sample std per step over seeds, using the runs that have the step', () => {
    const band = meanBand([
      [
        { x: 1, y: 1 },
        { x: 2, y: 2 },
      ],
      [
        { x: 1, y: 3 },
        { x: 3, y: 5 },
      ],
    ]);
    expect(band).toEqual([
      { x: 1, mean: 2, std: Math.SQRT2, band: [2 - Math.SQRT2, 2 + Math.SQRT2], runs: 2 },
      { x: 2, mean: 2, std: 0, band: [2, 2], runs: 1 },
      { x: 3, mean: 5, std: 0, band: [5, 5], runs: 1 },
    ]);
  });
});
