// Followers (src/engine/trainer/followers.ts) ride along a leader's student stage while their schedules plan each
// step as the leader's does, then leave and continue alone. What makes them worth having is that nothing of a
// follower's run differs from the run made alone: every event (step lines, gate windows and evaluations, the
// retirement, checkpoints, the summary) is compared here, wall-clock fields aside, for followers that leave
// mid-stage (fixed:3 under a never leader), at the end of the stage (a second never arm) and by their gate
// (adaptive), and after a stop in the middle of the ride; fixed:N matched to the adaptive trigger never leaves. A
// leader that fails takes no follower's result with it.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyOverrides, resolveConfig, type ExperimentConfig } from '../../../src/core/experiment/config';
import { createEnvFor } from '../../../src/core/experiment/envFactory';
import { loadPreset } from '../../../src/core/experiment/preset';
import { initBackend } from '../../../src/engine/backend';
import {
  decodeCheckpoint,
  MemoryCheckpointStorage,
  type CheckpointContent,
} from '../../../src/engine/trainer/checkpoint';
import { createEnginePort } from '../../../src/engine/trainer/engineAdapter';
import type { TrainerEvent } from '../../../src/engine/trainer/events';
import type { FollowerEnd } from '../../../src/engine/trainer/followers';
import { Trainer, type TrainerOptions } from '../../../src/engine/trainer/trainer';
import { parseTrainerState, type TrainerState } from '../../../src/engine/trainer/trainerState';
import { lookupPreset } from '../../support/presets';

let base: ExperimentConfig;
beforeAll(async () => {
  await initBackend('wasm');
  base = resolveConfig(
    {
      sft: { steps: 3 },
      teacher: { steps: 2 },
      student: { steps: 6, validationEvery: 1, schedule: 'never', gate: { windowSize: 1 } },
      evaluation: { temperatures: [2], testTasks: 4 },
      runtime: { checkpointEvery: 2, keepCheckpoints: 0 },
    },
    loadPreset('smoke', lookupPreset).config,
  );
});

const withSchedule = (schedule: string): ExperimentConfig =>
  applyOverrides(base, [`student.schedule=${schedule}`, `name=smoke-${schedule.replace(':', '-')}`]);

/** An event with the wall-clock fields removed: the only ones two runs of the same seed may differ in. */
const timeless = (e: TrainerEvent): unknown =>
  JSON.parse(
    JSON.stringify(e, (k, v: unknown) =>
      k.startsWith('time/') || k === 'wallSeconds' || k === 'stepMs' ? undefined : v,
    ),
  );

interface Outcome {
  events: TrainerEvent[];
  storage: MemoryCheckpointStorage;
}

/** An outcome's student-stage step lines, wall-clock fields removed. */
const studentStepLines = (o: Outcome): unknown[] =>
  o.events.filter((e) => e.type === 'step' && e.stage === 'student').map(timeless);

async function train(config: ExperimentConfig, extra: Partial<TrainerOptions> = {}, into?: Outcome): Promise<Outcome> {
  const env = createEnvFor(config);
  const out = into ?? { events: [], storage: new MemoryCheckpointStorage() };
  const trainer = new Trainer({
    config,
    env,
    engine: createEnginePort(env),
    storage: out.storage,
    onEvent: (e) => out.events.push(e),
    ...extra,
  });
  try {
    await trainer.run();
  } finally {
    trainer.dispose();
  }
  return out;
}

/**
 * Checkpoint `name` of an outcome, decoded, with its wall-clock fields (wall seconds, step ms sums) removed and the
 * optimizer's variable names without tfjs's per-instance suffix (`student_17/…` → `student/…`).
 */
async function decoded(o: Outcome, name: string, arm: string): Promise<unknown> {
  const content = decodeCheckpoint((await o.storage.read(name))!, (raw) => parseTrainerState(raw, withSchedule(arm)));
  const { msBefore, msAfter, ...counters } = content.state.counters;
  void msBefore;
  void msAfter;
  const optimizer = Object.fromEntries(
    Object.entries(content.optimizer).map(([k, v]) => [k.replace(/^([a-z]+)_\d+\//, '$1/'), v]),
  );
  return { ...content, optimizer, state: { ...content.state, wallSeconds: 0, counters } };
}

interface Ride extends Outcome {
  end: FollowerEnd | null;
}

/** The leader with `followers` riding along; each follower that left is then continued alone, into its outcome. */
async function population(
  leader: ExperimentConfig,
  followers: ExperimentConfig[],
  extra: (events: TrainerEvent[]) => Partial<TrainerOptions> = () => ({}),
): Promise<{ leader: Outcome; rides: Ride[] }> {
  const rides: Ride[] = followers.map(() => ({ events: [], storage: new MemoryCheckpointStorage(), end: null }));
  const lead: Outcome = { events: [], storage: new MemoryCheckpointStorage() };
  await train(
    leader,
    {
      ...extra(lead.events),
      followers: async () =>
        followers.map((config, i) => ({
          config,
          storage: rides[i]!.storage,
          onEvent: (e) => rides[i]!.events.push(e),
          end: (how) => void (rides[i]!.end = how),
        })),
    },
    lead,
  );
  for (const [i, ride] of rides.entries())
    if (ride.end?.kind === 'detached')
      await train(followers[i]!, { resume: ride.end.resume, continuation: true }, ride);
  return { leader: lead, rides };
}

describe('followers of a leader', () => {
  it('leave where their schedule first differs and end with exactly the events of the runs made alone', async () => {
    const before = tf.memory().numTensors;
    const arms = ['fixed:3', 'never', 'adaptive'];
    const { leader, rides } = await population(base, arms.map(withSchedule));
    expect(tf.memory().numTensors).toBe(before);
    const alone = await train(base);
    expect(leader.events.map(timeless)).toEqual(alone.events.map(timeless));
    for (const [i, arm] of arms.entries()) {
      const own = await train(withSchedule(arm));
      // a follower's events start where it joined: the student stage's start (its folder got the leader's prefix)
      const joined = own.events.findIndex((e) => e.type === 'stage' && e.stage === 'student' && e.status === 'start');
      expect(rides[i]!.events.map(timeless), arm).toEqual(own.events.slice(joined).map(timeless));
      // its student-stage checkpoints are the run alone's: weights and Adam state bit for bit, state.json (its own
      // config, schedule and counters) equal but for the wall-clock fields
      const studentCheckpoints = async (o: Outcome) =>
        (await o.storage.list()).filter((n) => n.startsWith('student-') && n !== 'student-000000');
      expect(await studentCheckpoints(rides[i]!), arm).toEqual(await studentCheckpoints(own));
      expect(await studentCheckpoints(own), arm).toEqual(['student-000002', 'student-000004', 'student-000006']);
      for (const name of await studentCheckpoints(own))
        expect(await decoded(rides[i]!, name, arm), `${arm} ${name}`).toEqual(await decoded(own, name, arm));
    }
    // fixed:3 left after step 3 (its step 4 runs no teacher); the second never arm rode to the end of the stage
    expect(rides[0]!.end).toMatchObject({ kind: 'detached', step: 3 });
    expect(rides[1]!.end).toMatchObject({ kind: 'detached', step: 6, reason: 'the student stage ended' });
    expect(rides[0]!.events.filter((e) => e.type === 'retirement')).toMatchObject([{ step: 3, triggerStep: 3 }]);
  });

  it('matched to the adaptive arm’s trigger, fixed:N rides the whole stage and trains the same student', async () => {
    // fixed:N with N = the adaptive run's trigger step plans every step as the adaptive run does, so it never leaves
    // its leader: the held-out protocol's fixed:N arm is RetireOPD's student by construction, on every environment
    const adaptive = withSchedule('adaptive');
    const alone = await train(adaptive);
    expect(alone.events.filter((e) => e.type === 'retirement')).toHaveLength(1);
    const trigger = alone.events.find((e) => e.type === 'retirement')!.step;
    expect(trigger).toBeLessThan(6);
    const fixed = withSchedule(`fixed:${trigger}`);
    const { rides } = await population(adaptive, [fixed]);
    expect(rides[0]!.end).toMatchObject({ kind: 'detached', step: 6, reason: 'the student stage ended' });
    const own = await train(fixed);
    const joined = own.events.findIndex((e) => e.type === 'stage' && e.stage === 'student' && e.status === 'start');
    expect(rides[0]!.events.map(timeless)).toEqual(own.events.slice(joined).map(timeless));
    // the same student: every student step's metrics and the final evaluation equal the adaptive run's
    expect(studentStepLines(own)).toEqual(studentStepLines(alone));
    expect(own.events.filter((e) => e.type === 'retirement')).toMatchObject([{ step: trigger }]);
    const final = (o: Outcome) => timeless(o.events.find((e) => e.type === 'evaluation' && e.kind === 'final')!);
    expect(final(own)).toEqual(final(alone));
  });

  it('stopped mid-ride, write their own interrupt checkpoints, which resume to the runs made alone', async () => {
    const arms = ['fixed:4', 'never'];
    let trainer: Trainer | null = null;
    const rides: Ride[] = arms.map(() => ({ events: [], storage: new MemoryCheckpointStorage(), end: null }));
    const env = createEnvFor(base);
    trainer = new Trainer({
      config: base,
      env,
      engine: createEnginePort(env),
      storage: new MemoryCheckpointStorage(),
      onEvent: (e) => {
        if (e.type === 'step' && e.stage === 'student' && e.step === 3) trainer!.requestStop();
      },
      followers: async () =>
        arms.map((schedule, i) => ({
          config: withSchedule(schedule),
          storage: rides[i]!.storage,
          onEvent: (e) => rides[i]!.events.push(e),
          end: (how) => void (rides[i]!.end = how),
        })),
    });
    try {
      expect((await trainer.run()).status).toBe('interrupted');
    } finally {
      trainer.dispose();
    }
    for (const [i, schedule] of arms.entries()) {
      const ride = rides[i]!;
      expect(ride.end, schedule).toEqual({ kind: 'stopped', step: 3 });
      expect(ride.events.at(-1), schedule).toMatchObject({
        type: 'checkpoint',
        name: 'student-000003',
        reason: 'interrupt',
      });
      const config = withSchedule(schedule);
      const files = (await ride.storage.read('student-000003'))!;
      const resume: CheckpointContent<TrainerState> = decodeCheckpoint(files, (raw) => parseTrainerState(raw, config));
      const resumed = await train(config, { resume, storage: ride.storage });
      const own = await train(config);
      const done = (o: Outcome) => timeless(o.events.find((e) => e.type === 'done')!);
      expect(done(resumed), schedule).toEqual(done(own));
      expect([...studentStepLines(ride).slice(0, 3), ...studentStepLines(resumed)], schedule).toEqual(
        studentStepLines(own),
      );
    }
  });

  it('are ended as lost when the leader fails, so that nothing half-shared is kept', async () => {
    const { rides } = await population(base, [withSchedule('never')], () => ({
      injectNonFinite: { stage: 'student', step: 2, term: 'grpo' },
    }));
    expect(rides[0]!.end).toMatchObject({ kind: 'lost' });
    expect(rides[0]!.events.filter((e) => e.type === 'step')).toHaveLength(1);
  });

  it('must share the leader’s trajectory key: a follower with another learning rate is refused', async () => {
    const other = applyOverrides(base, ['student.grpo.learningRate=0.5']);
    await expect(population(base, [other])).rejects.toThrow(/trajectory key differs/);
  });
});
