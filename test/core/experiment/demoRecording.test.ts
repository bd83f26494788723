// The shipped recordings (public/demo/, `npm run record-demo`) against the lab as it is today: each recording's
// config must be its preset resolved with the recording's overrides, and its own metrics.jsonl must replay, through
// the core gate replay, to the trigger step its events and summary report. No training.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../../src/core/experiment/config';
import { loadPreset } from '../../../src/core/experiment/preset';
import { demoStorySentence } from '../../../src/core/experiment/demoStory';
import type { RunSummary } from '../../../src/core/experiment/summary';
import {
  DEMO_ARMS,
  DEMO_FOLDER,
  DEMO_OVERRIDES,
  DEMO_SEED,
  demoCheckpoints,
  RECORD_DEMO_COMMAND,
  type DemoManifest,
} from '../../../src/core/experiment/demoRecording';
import { REPLAY_SCHEDULES, replayGate } from '../../../src/core/replay/gateReplay';
import { readRecordedRun } from '../../../src/core/runLog/recordedRunFiles';
import { lastFrame, playbackTimeline, runLogAt } from '../../../src/core/runLog/runPlayback';

const ROOT = join(__dirname, '..', '..', '..');
const DEMO = join(ROOT, 'public', DEMO_FOLDER);
const PRESETS = join(ROOT, 'public', 'presets');
const RERUN = `re-run \`${RECORD_DEMO_COMMAND}\` and commit public/${DEMO_FOLDER}/`;

const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
const manifest = JSON.parse(read(join(DEMO, 'manifest.json')) ?? 'null') as DemoManifest | null;

/** The preset as the lab resolves it today (public/presets/NAME.json, `extends` followed). */
function presetConfig(name: string) {
  return loadPreset(name, (n) => {
    const text = read(join(PRESETS, `${n}.json`));
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  }).config;
}

/** Dotted keys whose JSON values differ between two trees. */
function differingKeys(a: unknown, b: unknown, prefix = ''): string[] {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) =>
      differingKeys(
        (a as Record<string, unknown>)[k],
        (b as Record<string, unknown>)[k],
        prefix ? `${prefix}.${k}` : k,
      ),
    );
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix || '(root)'];
}

describe('the demo checkpoints a recording keeps', () => {
  const at = (stage: string, step: number) => ({ name: `${stage}-${String(step).padStart(6, '0')}`, stage, step });
  const written = [at('teacher', 0), at('student', 0), at('student', 10), at('student', 20), at('student', 30)];

  it('keeps the student stage’s start, the first checkpoint at or after the trigger, and the last', () => {
    expect(demoCheckpoints(written, 12)).toEqual(['student-000000', 'student-000020', 'student-000030']);
    expect(demoCheckpoints(written, 20)).toEqual(['student-000000', 'student-000020', 'student-000030']);
  });

  it('keeps the last checkpoint before the student stage when the run wrote no student-000000 (no teacher stage)', () => {
    expect(demoCheckpoints([at('sft', 10), at('teacher', 0), at('student', 10), at('student', 20)], null)).toEqual([
      'teacher-000000',
      'student-000020',
    ]);
  });

  it('keeps the start and the end when the teacher never retired, or retired after the last checkpoint', () => {
    expect(demoCheckpoints(written, null)).toEqual(['student-000000', 'student-000030']);
    expect(demoCheckpoints(written, 31)).toEqual(['student-000000', 'student-000030']);
  });
});

describe('the shipped recordings', () => {
  it(`exist for every arm on seed ${DEMO_SEED} (else ${RECORD_DEMO_COMMAND})`, () => {
    expect(manifest, `public/${DEMO_FOLDER}/manifest.json is missing: ${RERUN}`).not.toBeNull();
    expect(manifest!.seed, `the recordings are on seed ${manifest?.seed}, DEMO_SEED is ${DEMO_SEED}: ${RERUN}`).toBe(
      DEMO_SEED,
    );
    expect(manifest!.arms.map((a) => a.preset)).toEqual([...DEMO_ARMS]);
  });

  it('are quoted at their real size in the README and the teaching guide', () => {
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
    const total = mb(manifest!.totalBytes);
    for (const doc of ['README.md', 'docs/teaching.md'])
      expect(read(join(ROOT, doc)), `${doc} should quote the recordings' total, ${total}`).toContain(`${total}`);
    const perArm = manifest!.arms.map((a) => `${a.preset} ${mb(a.files.reduce((n, f) => n + f.bytes, 0))}`);
    for (const quote of perArm) expect(read(join(ROOT, 'docs/teaching.md'))).toContain(quote);
  });

  it("are quoted with the Overview's own sentence in the teaching guide", () => {
    const summary = (arm: string) => JSON.parse(read(join(DEMO, arm, 'summary.json')) ?? 'null') as RunSummary;
    const sentence = demoStorySentence({
      retire: summary('retire-shell'),
      opd: summary('opd-shell'),
      grpo: summary('grpo-shell'),
    });
    // the guide wraps lines: compare with runs of white space collapsed
    const guide = (read(join(ROOT, 'docs/teaching.md')) ?? '').replace(/\s+/g, ' ');
    expect(guide, `docs/teaching.md should quote the recordings' sentence: ${sentence}`).toContain(sentence);
  });

  for (const arm of DEMO_ARMS) {
    describe(arm, () => {
      const dir = join(DEMO, arm);
      const files = Object.fromEntries(
        ['config.json', 'metrics.jsonl', 'sft.jsonl', 'teacher.jsonl', 'events.jsonl', 'summary.json'].map((f) => [
          f,
          read(join(dir, f)),
        ]),
      );
      const entry = manifest?.arms.find((a) => a.preset === arm);

      it('has the config of its preset as the lab resolves it today, with the recording’s overrides', () => {
        expect(files['config.json'], `public/${DEMO_FOLDER}/${arm}/config.json is missing: ${RERUN}`).toBeDefined();
        expect(entry?.overrides).toEqual([...DEMO_OVERRIDES]);
        const recorded = JSON.parse(files['config.json']!) as unknown;
        const today = JSON.parse(JSON.stringify(applyOverrides(presetConfig(arm), DEMO_OVERRIDES))) as unknown;
        const keys = differingKeys(recorded, today);
        expect(
          keys,
          `public/${DEMO_FOLDER}/${arm}/config.json no longer matches preset ${arm} (public/presets/${arm}.json) ` +
            `resolved today; differing keys: ${keys.join(', ')}. The recording is stale: ${RERUN}`,
        ).toEqual([]);
        expect(entry?.configSha256).toBe(createHash('sha256').update(files['config.json']!).digest('hex'));
      });

      it('replays, through the core gate replay of its own metrics.jsonl, to its own trigger step', () => {
        const { config, run } = readRecordedRun(`public/${DEMO_FOLDER}/${arm}`, files);
        const triggerStep = run.summary?.gate.triggerStep ?? null;
        const retirement = run.events.find((e) => e.type === 'retirement');
        expect(retirement?.triggerStep ?? null).toBe(triggerStep);
        expect(entry?.triggerStep).toBe(triggerStep);
        const schedule = config.student.schedule;
        if (!(REPLAY_SCHEDULES as readonly string[]).includes(schedule)) {
          // a schedule that does not read the log (never, none, fixed:N): nothing to replay, and no retirement
          expect(triggerStep).toBeNull();
          return;
        }
        const g = config.student.gate;
        const result = replayGate([{ name: `${arm}/metrics.jsonl`, text: files['metrics.jsonl'] ?? '' }], {
          gate: {
            teacherPerformance: run.summary!.teacherPerformance!,
            windowSize: g.windowSize,
            alignmentThreshold: g.alignmentThreshold,
            competenceThreshold: g.competenceThreshold,
            denominatorEpsilon: g.denominatorEpsilon,
          },
          schedule: schedule as (typeof REPLAY_SCHEDULES)[number],
        });
        expect(
          result.summary.trigger_step,
          `the gate replay of public/${DEMO_FOLDER}/${arm}/metrics.jsonl no longer retires where the run did ` +
            `(replay ${result.summary.trigger_step}, recorded ${triggerStep}): the gate changed; ${RERUN}`,
        ).toBe(triggerStep);
      });

      it('plays back to the run’s own end: its summary, and the retirement at the recorded trigger step', () => {
        const { run } = readRecordedRun(`public/${DEMO_FOLDER}/${arm}`, files);
        const t = playbackTimeline(run);
        const end = runLogAt(t, lastFrame(t));
        expect(end.summary?.status).toBe('completed');
        expect(end.steps.student.length).toBe(run.steps.student.length);
        expect(end.retirement?.triggerStep ?? null).toBe(run.summary?.gate.triggerStep ?? null);
      });

      it('ships the checkpoints its manifest lists, each with its manifest.json', () => {
        expect(entry?.checkpoints.length).toBeGreaterThanOrEqual(2);
        for (const c of entry?.checkpoints ?? [])
          expect(existsSync(join(dir, 'checkpoints', c, 'manifest.json')), `${arm}/checkpoints/${c}`).toBe(true);
      });
    });
  }
});
