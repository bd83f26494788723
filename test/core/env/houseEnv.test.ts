import { describe, expect, it } from 'vitest';
import { HOUSE_CONTAINERS, HOUSE_OBJECTS, HOUSE_ROOMS, HouseEnv } from '../../../src/core/env/houseEnv';
import { play } from './helpers';

const env = new HouseEnv({ seed: 5 });
const tasks = env.tasks('train', 300);
const task = tasks[0]!;
const w = task.world;
const obj = HOUSE_OBJECTS[w.object]!;
const srcRoom = HOUSE_ROOMS[w.sourceRoom]!;
const srcCont = HOUSE_CONTAINERS[w.sourceContainer]!;

describe('house environment', () => {
  it('names the object, the target room and container in the goal', () => {
    expect(task.goal).toBe(`put ${obj} in ${HOUSE_ROOMS[w.targetRoom]} ${HOUSE_CONTAINERS[w.targetContainer]}`);
    expect(w.targetRoom).not.toBe(w.sourceRoom);
  });

  it('puts each object in its usual room in every task, inside one of that room’s two containers', () => {
    for (const t of tasks) {
      expect(t.world.sourceRoom).toBe(env.usualRoom[t.world.object]);
      expect(t.world.roomContainers[t.world.sourceRoom]).toContain(t.world.sourceContainer);
      expect(t.world.roomContainers.map((c) => c.length)).toEqual([0, 2, 2, 2, 2, 2]);
    }
  });

  it('describes rooms and containers, and succeeds with "done" when the object lands in the target', () => {
    const { batch, observations } = play(env, task, env.expertPlan(w));
    const inRoom = w.roomContainers[w.sourceRoom]!.map((c) => HOUSE_CONTAINERS[c]).join(' ');
    expect(observations[0]).toBe(`${srcRoom} has ${inRoom}`);
    expect(observations[1]).toMatch(new RegExp(`^${srcCont} has .*\\b${obj}\\b`));
    expect(observations[2]).toBe(`you hold ${obj}`);
    expect(observations.at(-1)).toBe('done');
    expect(batch.success[0]).toBe(1);
  });

  it('refuses to take from a closed container, to open one in another room and to go nowhere', () => {
    const elsewhere = HOUSE_CONTAINERS[w.targetContainer]!;
    const { batch, observations } = play(env, task, [
      ['look'],
      ['go', srcRoom],
      ['take', obj],
      ['open', elsewhere],
      ['go', 'apple' === obj ? 'key' : 'apple'],
    ]);
    expect(observations).toEqual(['hall has nothing', expect.any(String), 'cannot take', 'not here', 'no such room']);
    expect(batch.invalidActions[0]).toBe(3);
    expect(batch.turns[0]).toBe(5);
    expect(batch.done[0]).toBe(0);
  });

  it('lets the object go into a wrong container without ending the episode, and be taken back', () => {
    const other = w.roomContainers[w.sourceRoom]!.find((c) => c !== w.sourceContainer)!;
    const { batch, observations } = play(env, task, [
      ['go', srcRoom],
      ['open', srcCont],
      ['take', obj],
      ['put', obj, HOUSE_CONTAINERS[other]!],
      ['take', obj],
    ]);
    expect(observations[3]).toBe(`${obj} in ${HOUSE_CONTAINERS[other]}`);
    expect(observations[4]).toBe(`you hold ${obj}`);
    expect(batch.done[0]).toBe(0);
    expect(batch.invalidActions[0]).toBe(0);
  });

  it('retrieves the skill of the goal’s object, naming its usual room unless misleading', () => {
    for (const t of tasks) {
      const o = HOUSE_OBJECTS[t.world.object]!;
      expect(t.skill.startsWith(`${o} usually in `)).toBe(true);
      expect(t.skill === `${o} usually in ${HOUSE_ROOMS[t.world.sourceRoom]}`).toBe(!t.skillMisleading);
    }
  });

  it('with randomFacts draws each task’s room for the object, the skill telling it, and the expert still solves it', () => {
    const control = new HouseEnv({ seed: 5, randomFacts: true });
    const ct = control.tasks('validation', 400);
    const byObject = new Map<number, Set<number>>();
    for (const t of ct)
      byObject.set(t.world.object, (byObject.get(t.world.object) ?? new Set()).add(t.world.sourceRoom));
    // every object seen often lands in several rooms (fixed facts: exactly one, checked above)
    for (const rooms of byObject.values()) expect(rooms.size).toBeGreaterThanOrEqual(3);
    for (const t of ct) {
      const o = HOUSE_OBJECTS[t.world.object]!;
      expect(t.skill === `${o} usually in ${HOUSE_ROOMS[t.world.sourceRoom]}`).toBe(!t.skillMisleading);
      expect(t.world.roomContainers[t.world.sourceRoom]).toContain(t.world.sourceContainer);
    }
    for (const t of ct.slice(0, 20)) expect(play(control, t, control.expertPlan(t.world)).batch.success[0]).toBe(1);
  });
});
