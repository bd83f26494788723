import { describe, expect, it } from 'vitest';
import { MAX_PAUSE_MS, RedrawQueue, restFor, type RedrawHost } from '../../src/app/charts/redrawQueue';

/** A host with a hand-driven clock: timers run only when `advance` passes their time. */
function fakeHost() {
  let now = 0;
  let hidden = false;
  let shownWaiters: (() => void)[] = [];
  const inputListeners: (() => void)[] = [];
  let timers: { at: number; run: () => void }[] = [];
  const host: RedrawHost = {
    now: () => now,
    setTimeout: (run, ms) => {
      const timer = { at: now + ms, run };
      timers.push(timer);
      return () => void (timers = timers.filter((t) => t !== timer));
    },
    hidden: () => hidden,
    onShown: (run) => void shownWaiters.push(run),
    onInput: (run) => void inputListeners.push(run),
  };
  return {
    host,
    /** move the clock to `to`, running each timer due on the way at its own time */
    advanceTo(to: number) {
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const t = timers[0];
        if (!t || t.at > to) break;
        timers.shift();
        now = Math.max(now, t.at);
        t.run();
      }
      now = Math.max(now, to);
    },
    /** a redraw that takes `ms` of the clock */
    spend: (ms: number) => (now += ms),
    userActs: () => inputListeners.forEach((run) => run()),
    pending: () => timers.length,
    setHidden(h: boolean) {
      hidden = h;
      if (!h) {
        const w = shownWaiters;
        shownWaiters = [];
        w.forEach((run) => run());
      }
    },
  };
}

describe('the chart redraw queue', () => {
  it('rests until an overspent budget refills: 10 ms over at a 5 % share is 200 ms of rest', () => {
    expect(restFor(-10, 0.05)).toBeCloseTo(200, 9);
    expect(restFor(-4, 0.05)).toBeCloseTo(80, 9);
    expect(restFor(-10, 0.5)).toBeCloseTo(20, 9);
  });

  it('does not rest with budget left, and rests no longer than the cap after one very slow redraw', () => {
    expect(restFor(0)).toBe(0);
    expect(restFor(30)).toBe(0);
    expect(restFor(Number.NaN)).toBe(0);
    expect(restFor(-400, 0.05)).toBe(MAX_PAUSE_MS);
  });

  it('runs one redraw per task, in order, each after the rest the ones before it earned', () => {
    const f = fakeHost();
    const q = new RedrawQueue(f.host, 0.05, 0);
    q.trainingStarted();
    const drawn: [string, number][] = [];
    const chart = (name: string, cost: number) => () => {
      drawn.push([name, f.host.now()]);
      f.spend(cost);
    };
    q.enqueue(chart('a', 10));
    q.enqueue(chart('b', 20));
    q.enqueue(chart('c', 5));
    expect(drawn).toEqual([]); // never inside the caller's task
    f.advanceTo(0);
    expect(drawn).toEqual([['a', 0]]);
    // a took 10 ms (0–10): the budget, −10 ms, refills at 5 % in 200 ms, so b starts at 210
    f.advanceTo(209);
    expect(drawn.length).toBe(1);
    f.advanceTo(210);
    expect(drawn[1]).toEqual(['b', 210]);
    // b took 20 ms (210–230): −20 ms refills in 400 ms, so c at 630; then the queue is empty and stops
    f.advanceTo(10_000);
    expect(drawn[2]).toEqual(['c', 630]);
    expect(q.length).toBe(0);
    expect(f.pending()).toBe(0);
  });

  it('draws a burst up to its budget back to back, then paces', () => {
    const f = fakeHost();
    const q = new RedrawQueue(f.host, 0.05, 250);
    q.trainingStarted();
    const drawn: number[] = [];
    for (let i = 0; i < 4; i++)
      q.enqueue(() => {
        drawn.push(f.host.now());
        f.spend(100);
      });
    f.advanceTo(100_000);
    // 250 → 150 → 50 → −50 (rest 1,000 ms) → the fourth at 1,300
    expect(drawn).toEqual([0, 100, 200, 1_300]);
  });

  it('has its budget back after a quiet spell', () => {
    const f = fakeHost();
    const q = new RedrawQueue(f.host, 0.05, 250);
    q.trainingStarted();
    const drawn: number[] = [];
    const redraw = () => {
      drawn.push(f.host.now());
      f.spend(200);
    };
    q.enqueue(redraw);
    q.enqueue(redraw);
    f.advanceTo(10_000);
    // 250 → 50 → −150: the second drew at once, the budget is overspent by 150 ms
    expect(drawn).toEqual([0, 200]);
    // 10 s later (far more than the 8 s a −150 ms budget needs to refill to its 250 ms cap) two more draw at once
    f.advanceTo(20_000);
    q.enqueue(redraw);
    q.enqueue(redraw);
    f.advanceTo(30_000);
    expect(drawn).toEqual([0, 200, 20_000, 20_200]);
  });

  it('answers a user’s action at once: a resting queue goes on and has its full budget again', () => {
    const f = fakeHost();
    const q = new RedrawQueue(f.host, 0.05, 250);
    q.trainingStarted();
    const drawn: [string, number][] = [];
    const chart = (name: string, cost: number) => () => {
      drawn.push([name, f.host.now()]);
      f.spend(cost);
    };
    q.enqueue(chart('a', 300)); // overspends the 250 ms budget by 50 ms: 1,000 ms of rest
    q.enqueue(chart('b', 100));
    q.enqueue(chart('c', 100));
    f.advanceTo(400);
    expect(drawn).toEqual([['a', 0]]);
    f.userActs(); // at 400, 700 ms before b's turn
    f.advanceTo(400);
    expect(drawn).toEqual([
      ['a', 0],
      ['b', 400],
    ]);
    // b spent 100 of the fresh 250 ms: c goes on at once too
    f.advanceTo(500);
    expect(drawn[2]).toEqual(['c', 500]);
    expect(f.pending()).toBe(0);
  });

  it('does not rest while nothing trains, and goes on at once when the last training ends', () => {
    const f = fakeHost();
    const q = new RedrawQueue(f.host, 0.05, 0);
    const drawn: number[] = [];
    const redraw = () => {
      drawn.push(f.host.now());
      f.spend(100);
    };
    q.enqueue(redraw);
    q.enqueue(redraw);
    f.advanceTo(1_000);
    expect(drawn).toEqual([0, 100]); // one per task, no rest
    const endA = q.trainingStarted();
    const endB = q.trainingStarted();
    q.enqueue(redraw);
    q.enqueue(redraw);
    f.advanceTo(1_500);
    expect(drawn).toEqual([0, 100, 1_000]); // paced: −100 ms, 1,500 ms of rest (the cap)
    endA();
    endA(); // once is enough: a second call does not end B's
    f.advanceTo(1_500);
    expect(drawn.length).toBe(3);
    endB();
    f.advanceTo(1_500);
    expect(drawn).toEqual([0, 100, 1_000, 1_500]);
  });

  it('draws nothing while the page is hidden and resumes when it is shown', () => {
    const f = fakeHost();
    const q = new RedrawQueue(f.host, 0.05);
    const drawn: string[] = [];
    f.setHidden(true);
    q.enqueue(() => drawn.push('a'));
    q.enqueue(() => drawn.push('b'));
    f.advanceTo(60_000);
    expect(drawn).toEqual([]);
    f.setHidden(false);
    expect(drawn).toEqual(['a']);
    f.advanceTo(60_000);
    expect(drawn).toEqual(['a', 'b']);
  });

  it('goes on with the next chart when a redraw throws', () => {
    const f = fakeHost();
    const q = new RedrawQueue(f.host, 0.05);
    const drawn: string[] = [];
    q.enqueue(() => {
      throw new Error('chart failed');
    });
    q.enqueue(() => drawn.push('b'));
    expect(() => f.advanceTo(0)).toThrow('chart failed');
    f.advanceTo(1_000);
    expect(drawn).toEqual(['b']);
  });
});
