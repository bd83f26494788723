import { describe, expect, it } from 'vitest';
import { unzipSync, strFromU8 } from 'fflate';
import { importRunFolders, runFolderFiles, type DroppedFile } from '../../src/app/runs/runFolderFiles';
import { runZip } from '../../src/app/runs/runExportZip';
import type { StoredMetrics } from '../../src/app/runs/runRecord';
import { MemoryRunRepository } from '../../src/app/runs/runRepository';
import { verlSnippet } from '../../src/app/runs/verlSnippet';
import { comparisonMarkdown } from '../../src/app/runs/comparison';
import { compareRuns, formatComparisonTable } from '../../src/core/experiment/comparison';
import { applyOverrides } from '../../src/core/experiment/config';
import { CONFIG, summary } from './runFixtures';
import { freshRecord } from './runRecordFixtures';

const text = (v: string | Uint8Array | undefined) => (typeof v === 'string' ? v : v ? strFromU8(v) : undefined);

describe('a stored run as the CLI run folder', () => {
  const record = { ...freshRecord(), status: 'completed' as const, summary: summary('completed', 10) };
  const metrics: StoredMetrics[] = [
    { runId: 'run-1', stage: 'sft' as const, step: 1, line: { step: 1, 'sft/loss': 2 } },
    { runId: 'run-1', stage: 'student' as const, step: 1, line: { step: 1, 'actor/entropy': NaN } },
  ];

  it('writes config.json, each stage’s log (NaN as null), events, summary and report', () => {
    const files = runFolderFiles(record, metrics, [
      { runId: 'run-1', seq: 0, stage: 'student', step: 1, event: { type: 'warning', message: 'w' } },
    ]);
    expect([...files.keys()]).toEqual([
      'config.json',
      'sft.jsonl',
      'metrics.jsonl',
      'events.jsonl',
      'summary.json',
      'report.md',
    ]);
    expect(JSON.parse(text(files.get('config.json'))!)).toEqual(CONFIG);
    expect(text(files.get('metrics.jsonl'))).toBe('{"step":1,"actor/entropy":null}\n');
    expect(text(files.get('sft.jsonl'))).toBe('{"step":1,"sft/loss":2}\n');
    expect(text(files.get('events.jsonl'))).toBe('{"type":"warning","message":"w"}\n');
    expect(JSON.parse(text(files.get('summary.json'))!).gate.triggerStep).toBe(10);
  });

  it('zips the folder with its checkpoints and LATEST, as npm run experiment -- --resume expects', async () => {
    const repo = new MemoryRunRepository();
    await repo.putRun(record);
    await repo.append(metrics, []);
    await repo.checkpoints('run-1').write('student-000005', new Map([['state.json', new Uint8Array([123, 125])]]));
    const zip = (await runZip(repo, 'run-1'))!;
    const files = unzipSync(zip.bytes);
    const folder = zip.name.replace(/\.zip$/, '');
    expect(folder).toBe('unit-seed3-run-1');
    expect(Object.keys(files).sort()).toEqual(
      [
        'checkpoints/LATEST',
        'checkpoints/student-000005/state.json',
        'config.json',
        'events.jsonl',
        'metrics.jsonl',
        'report.md',
        'sft.jsonl',
        'summary.json',
      ].map((f) => `${folder}/${f}`),
    );
    expect(strFromU8(files[`${folder}/checkpoints/LATEST`]!)).toBe('student-000005');
  });

  it('imports what it exported: the same config, lines (null back to NaN) and summary', () => {
    const files = runFolderFiles(record, metrics, []);
    const dropped: DroppedFile[] = [...files].map(([p, v]) => ({ path: `run/${p}`, text: text(v)! }));
    const [run] = importRunFolders(dropped, 42);
    expect(run!.record).toMatchObject({
      origin: 'import',
      status: 'imported',
      seed: 3,
      triggerStep: 10,
      config: CONFIG,
    });
    expect(run!.record.summary).toEqual(record.summary);
    expect(run!.metrics.map((m) => [m.stage, m.step])).toEqual([
      ['sft', 1],
      ['student', 1],
    ]);
    expect(run!.metrics[1]!.line['actor/entropy']).toBeNaN();
  });

  it('imports a sweep folder in the order and with the points of its comparison.json', () => {
    const dropped: DroppedFile[] = [];
    const labels = ['student.schedule=adaptive seed=0', 'student.schedule=never seed=0'];
    const summaries = [0.25, 0.75].map((x) => {
      const s = summary('completed', 10);
      return { ...s, seed: 0, test: { ...s.test, successRate: x } };
    });
    dropped.push({
      path: 'sw/comparison.json',
      text: JSON.stringify({
        axes: { 'student.schedule': ['adaptive', 'never'] },
        runs: labels.map((label) => ({ label })),
      }),
    });
    // folders listed in reverse: the order comes from comparison.json
    for (const i of [1, 0]) {
      const cfg = applyOverrides(CONFIG, [`student.schedule=${i ? 'never' : 'adaptive'}`, 'seed=0']);
      const dir = `sw/${labels[i]!.replace(/[^A-Za-z0-9.=-]+/g, '_').replace(/=/g, '-')}`;
      dropped.push({ path: `${dir}/config.json`, text: JSON.stringify(cfg) });
      dropped.push({ path: `${dir}/summary.json`, text: JSON.stringify(summaries[i]) });
    }
    const runs = importRunFolders(dropped, 7).map((r) => r.record);
    expect(runs.map((r) => [r.label, r.queueIndex, r.point])).toEqual([
      ['student.schedule=never seed=0', 1, { 'student.schedule': 'never' }],
      ['student.schedule=adaptive seed=0', 0, { 'student.schedule': 'adaptive' }],
    ]);
    expect(comparisonMarkdown(runs)).toBe(
      formatComparisonTable(
        compareRuns([
          { point: { 'student.schedule': 'adaptive' }, summary: summaries[0]! },
          { point: { 'student.schedule': 'never' }, summary: summaries[1]! },
        ]),
      ),
    );
  });

  it('names the file and line of what it cannot import', () => {
    expect(() => importRunFolders([{ path: 'r/metrics.jsonl', text: '{}' }])).toThrow('no run folder found');
    expect(() =>
      importRunFolders([
        { path: 'r/config.json', text: JSON.stringify(CONFIG) },
        { path: 'r/metrics.jsonl', text: '{"step":1}\n{oops' },
      ]),
    ).toThrow(/^r\/metrics\.jsonl:2: not valid JSON/);
    expect(() => importRunFolders([{ path: 'r/config.json', text: '{"seed":-1}' }])).toThrow('seed');
  });

  it('refuses two config.json files in one folder, or two metrics.jsonl, instead of keeping one silently', () => {
    const config = { path: 'config.json', text: JSON.stringify(CONFIG) };
    expect(() => importRunFolders([config, { ...config, text: JSON.stringify({ ...CONFIG, seed: 9 }) }])).toThrow(
      "(dropped files): two config.json files — a run folder holds one; import each run's folder (or its files) on its own",
    );
    expect(() =>
      importRunFolders([
        { path: 'r/config.json', text: JSON.stringify(CONFIG) },
        { path: 'r/metrics.jsonl', text: '{"step":1}\n' },
        { path: 'r/metrics.jsonl', text: '{"step":2}\n' },
      ]),
    ).toThrow('r: two metrics.jsonl files');
  });

  it('refuses a summary.json that contradicts its config or its metrics, naming both values', () => {
    const folder = (s: object, metricsText: string): DroppedFile[] => [
      { path: 'r/config.json', text: JSON.stringify(CONFIG) },
      { path: 'r/summary.json', text: JSON.stringify(s) },
      { path: 'r/metrics.jsonl', text: metricsText },
    ];
    const s = { ...summary('completed', 10), validation: { best: 0.5, last: 0.5 } };
    const log = (trigger: number, val: number) =>
      `{"step":5,"retire_opd/trigger_step":-1,"val/success_rate":0.25}\n` +
      `{"step":10,"retire_opd/trigger_step":${trigger},"val/success_rate":${val}}\n` +
      `{"step":11,"retire_opd/trigger_step":${trigger}}\n`;
    // agreeing: the log's first trigger ≥ 0 is the summary's, its last validation score the summary's last
    expect(importRunFolders(folder(s, log(10, 0.5)))[0]!.record.step).toBe(11);
    expect(() => importRunFolders(folder(s, log(12, 0.5)))).toThrow(
      "r/summary.json contradicts its metrics.jsonl: trigger step 10, metrics.jsonl's 12 (retire_opd/trigger_step) (not this run's)",
    );
    expect(() => importRunFolders(folder(s, log(10, 0.75)))).toThrow(
      "r/summary.json contradicts its metrics.jsonl: last validation score 0.5, metrics.jsonl's 0.75",
    );
    expect(() => importRunFolders(folder({ ...s, seed: 4 }, log(10, 0.5)))).toThrow(
      "r/summary.json contradicts config.json: seed 4, config.json's 3",
    );
    // a run that never retired logs −1 throughout: a summary naming a trigger step contradicts it
    expect(() => importRunFolders(folder(s, '{"step":1,"retire_opd/trigger_step":-1}\n'))).toThrow(
      "trigger step 10, metrics.jsonl's none",
    );
  });
});

describe('the RetireOPD (verl) snippet', () => {
  it('maps the gate and OPD settings to the RetireOPD trainer’s own keys', () => {
    const s = verlSnippet(CONFIG, 0.8);
    expect(s).toContain('# python3 -m verl.trainer.main_retire_opd_trainer');
    for (const line of [
      '+algorithm.opd.opd_coef=0.5',
      '+algorithm.opd.teacher_performance=0.8',
      '+algorithm.opd.retirement_window_size=5',
      'trainer.test_freq=5',
      '+algorithm.opd.alignment_threshold=0',
      '+algorithm.opd.competence_threshold=0.9',
      '+algorithm.opd.denominator_epsilon=1e-8',
      '+algorithm.opd.success_metric=val/success_rate',
      'env.rollout.n=8',
    ])
      expect(s.split('\n')).toContain(line);
  });

  it('says when a schedule has no counterpart, and leaves OPD out of plain GRPO', () => {
    expect(verlSnippet(applyOverrides(CONFIG, ['student.schedule=fixed:30']), 0.8)).toContain('has no counterpart');
    const none = verlSnippet(applyOverrides(CONFIG, ['student.schedule=none']), null);
    expect(none).not.toContain('+algorithm.opd');
    expect(verlSnippet(applyOverrides(CONFIG, ['student.schedule=never']), null)).toContain('main_grpo_opd_trainer');
  });
});
