// A sweep's lanes (cli/sweepLanes.ts): how runs are grouped so that no two lanes share work, the --jobs and --part
// flags, and the lane scheduler. That a lane's run folders equal the one-process sweep's: experiment.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../src/core/experiment/config';
import { expandSweep, type SweepRun } from '../../src/core/experiment/sweep';
import { UserError } from '../../src/core/errors';
import { readPreset } from '../../cli/presetFiles';
import { parseJobs, parsePart, planLanes, runLanes } from '../../cli/sweepLanes';

/** The runs of `npm run sweep -- --presets A,B … --seeds …` (each preset one point), as cli/sweep.ts plans them. */
function presetRuns(names: string[], seeds: number[], sets: string[] = []): SweepRun[] {
  return names.flatMap((name) =>
    expandSweep(applyOverrides(readPreset(name).config, sets), { seeds, axes: {} }).map((r) => ({
      ...r,
      label: `preset=${name} ${r.label}`,
      point: { preset: name },
    })),
  );
}

describe('planLanes', () => {
  it('keeps RetireOPD and OPD throughout of one seed together and gives GRPO, which shares nothing, its own lane', () => {
    const runs = presetRuns(['retire-shell', 'opd-shell', 'grpo-shell'], [0]);
    // OPD throughout (1) keeps the teacher longest, so it leads and RetireOPD (0) rides along it
    expect(planLanes(runs, 2, { matchTemperature: false })).toEqual({ groups: [[1, 0], [2]], by: 'prefix' });
  });

  it('groups a 2-arm × 5-seed sweep by seed: each lane is one seed’s pair, which shares its prefix and student steps', () => {
    const runs = presetRuns(['retire-shell', 'opd-shell'], [0, 1, 2, 3, 4]);
    const { groups, by } = planLanes(runs, 2, { matchTemperature: false });
    expect(by).toBe('prefix');
    // runs are preset-major: retire seeds 0–4 are 0–4, opd seeds 0–4 are 5–9; OPD throughout leads each pair
    expect(groups).toEqual([
      [5, 0],
      [6, 1],
      [7, 2],
      [8, 3],
      [9, 4],
    ]);
  });

  it('splits runs of one prefix by trajectory key when fewer prefixes than lanes would leave cores idle', () => {
    // one seed, one prefix; λ_opd 0.1 vs 1 train different student steps (another trajectory key), the schedule not
    const base = readPreset('retire-shell').config;
    const runs = expandSweep(base, {
      seeds: [0],
      axes: { 'student.lambdaOpd': [0.1, 1], 'student.schedule': ['adaptive', 'never'] },
    });
    expect(runs.map((r) => r.label)).toEqual([
      'student.lambdaOpd=0.1 student.schedule=adaptive seed=0',
      'student.lambdaOpd=0.1 student.schedule=never seed=0',
      'student.lambdaOpd=1 student.schedule=adaptive seed=0',
      'student.lambdaOpd=1 student.schedule=never seed=0',
    ]);
    // in each, never leads and adaptive rides along it
    expect(planLanes(runs, 2, { matchTemperature: false })).toEqual({
      groups: [
        [1, 0],
        [3, 2],
      ],
      by: 'trajectory',
    });
    // with one lane per prefix available there is nothing to split
    expect(planLanes(runs, 1, { matchTemperature: false }).by).toBe('prefix');
  });

  it('orders a group by how long each schedule keeps the teacher: never, the gated ones, the step ones, ties in sweep order', () => {
    const base = readPreset('retire-shell').config;
    const schedules = ['fixed:50', 'competence-only', 'adaptive', 'never', 'alignment-only', 'fixed:10'];
    const runs = expandSweep(base, { seeds: [0], axes: { 'student.schedule': schedules } });
    const { groups } = planLanes(runs, 1, { matchTemperature: false });
    expect(groups.map((g) => g.map((i) => schedules[i]))).toEqual([
      ['never', 'competence-only', 'adaptive', 'alignment-only', 'fixed:50', 'fixed:10'],
    ]);
  });

  it('keeps each seed of a temperature-matched sweep in one lane (the matched arm reads its reference run)', () => {
    const runs = presetRuns(['retire-shell', 'grpo-shell'], [3, 4]);
    expect(planLanes(runs, 4, { matchTemperature: true })).toEqual({
      groups: [
        [0, 2],
        [1, 3],
      ],
      by: 'seed',
    });
  });

  it('puts the largest group first, ties in sweep order', () => {
    // grpo-shell (0) alone; opd-shell (2) leads retire-shell (1)
    const runs = presetRuns(['grpo-shell', 'retire-shell', 'opd-shell'], [0]);
    expect(planLanes(runs, 2, { matchTemperature: false }).groups).toEqual([[2, 1], [0]]);
  });
});

describe('--jobs and --part', () => {
  it('reads --jobs as an integer ≥ 1, or auto as at least one lane, and refuses anything else naming the flag', () => {
    expect(parseJobs('3', 1)).toBe(3);
    expect(parseJobs(undefined, 1)).toBe(1);
    expect(parseJobs('auto', 1)).toBeGreaterThanOrEqual(1);
    expect(parseJobs(undefined, 'auto')).toBe(parseJobs('auto', 1));
    for (const bad of ['0', '-1', '1.5', 'two', ''])
      expect(() => parseJobs(bad, 1)).toThrow(new UserError(`--jobs: expected an integer ≥ 1 or "auto", got "${bad}"`));
  });

  it('reads --part as distinct run indices of the sweep', () => {
    expect(parsePart('4,0, 2', 5)).toEqual([4, 0, 2]);
    for (const bad of ['5', '1,1', '-1', 'a', ''])
      expect(() => parsePart(bad, 5)).toThrow(/^--part: expected distinct run indices in 0 … 4/);
  });
});

/** One turn of the event loop: every promise already settled has run its callbacks (no wall-clock wait). */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A promise and the function that resolves it: a task waits on another task's step, not on a timer. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('runLanes', () => {
  it('runs at most `jobs` tasks at once, each lane taking the next task, and returns every exit code', async () => {
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const ended = await runLanes([0, 1, 2, 3, 4], 2, async (task) => {
      running++;
      most = Math.max(most, running);
      order.push(task);
      await turn(); // the other lane starts its task meanwhile, if there is one
      running--;
      return task === 3 ? 1 : 0;
    });
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(new Map(ended.map((e) => [e.task, e.code]))).toEqual(
      new Map([
        [0, 0],
        [1, 0],
        [2, 0],
        [3, 1],
        [4, 0],
      ]),
    );
  });

  it('starts the tasks not yet started before a task enqueued while others run', async () => {
    // lane 0 runs task 1 and enqueues 10 while lane 1 runs task 2; lane 1 then takes 3 (which may enqueue work of
    // its own) before 10, and task 1 ends only once 3 has started (had 10 come first, 3 would start after 10)
    const order: number[] = [];
    const twoStarted = deferred();
    const twoMayEnd = deferred();
    const threeStarted = deferred();
    const ended = await runLanes([1, 2, 3], 2, async (task, _lane, enqueue) => {
      order.push(task);
      if (task === 1) {
        await twoStarted.promise;
        enqueue(10);
        twoMayEnd.resolve();
        await threeStarted.promise;
      } else if (task === 2) {
        twoStarted.resolve();
        await twoMayEnd.promise;
      } else if (task === 3) threeStarted.resolve();
      return 0;
    });
    expect(order).toEqual([1, 2, 3, 10]);
    expect(ended).toHaveLength(4);
  });

  it('takes the enqueued tasks largest size first, ties in the order they were enqueued', async () => {
    // one lane: task 0 enqueues four tasks of sizes 5, 9, 5 and 7 (the task number's tens digit is its size)
    const order: number[] = [];
    await runLanes(
      [0],
      1,
      async (task, _lane, enqueue) => {
        order.push(task);
        if (task === 0) for (const t of [51, 91, 52, 71]) enqueue(t);
        return 0;
      },
      () => false,
      (task) => Math.floor(task / 10),
    );
    expect(order).toEqual([0, 91, 71, 51, 52]);
  });

  it('keeps an idle lane waiting while a running task may still enqueue work', async () => {
    // one task; it enqueues another only at its end: the second lane must still be there to take it
    const lanesUsed: number[] = [];
    await runLanes([1], 2, async (task, lane, enqueue) => {
      lanesUsed.push(lane);
      if (task === 1) {
        await turn(); // the idle lane has had every chance to give up
        enqueue(2);
        await turn(); // a lane still waiting takes 2 now; one that gave up leaves 2 to lane 0, after this task
      }
      return 0;
    });
    expect(lanesUsed).toEqual([0, 1]);
  });

  it('starts no further task once stopped', async () => {
    let stop = false;
    const ended = await runLanes(
      [0, 1, 2],
      1,
      async (task) => {
        if (task === 1) stop = true;
        return 0;
      },
      () => stop,
    );
    expect(ended.map((e) => e.task)).toEqual([0, 1]);
  });
});
