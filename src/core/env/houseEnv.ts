// house: an ALFWorld-like household. Five rooms (plus the hall where the agent starts) hold two containers each,
// placed at random per task; objects lie inside containers. The universe (fixed by the seed) puts every kind of
// object usually in one room; the goal names the target container and its room ("put apple in kitchen fridge").
// The skill says where the object usually is ("apple usually in garage"); without it an agent must search rooms,
// and 6 turns leave room for one wrong guess at most inside the right room.
//   actions: look | go ROOM | open CONTAINER | take OBJECT | put OBJECT CONTAINER
//   observations: `ROOM has C1 C2`, `C has X Y` / `C is empty`, `you hold X`, `X in C`, `done`, or errors.
import type { Rng } from '../rng';
import { deriveRng, hashString } from '../rng';
import { Outcome } from './episodeBatch';
import { MicroEnv, resolveEnvOptions, type EnvTask, type EpisodePolicy, type WorldDraft } from './microEnv';
import { scriptedPolicy } from './scriptedPolicy';
import type { SkillEntry } from './skillBank';
import type { EnvOptions } from './types';

/** room 0 is the hall (start, no containers) */
export const HOUSE_ROOMS = ['hall', 'kitchen', 'bedroom', 'bathroom', 'garage', 'office'] as const;
export const HOUSE_CONTAINERS = [
  'fridge', 'cabinet', 'drawer', 'shelf', 'box', 'basket', 'closet', 'desk', 'bin', 'chest',
] as const; // prettier-ignore
export const HOUSE_OBJECTS = [
  'apple', 'key', 'book', 'cup', 'towel', 'phone', 'sock', 'pen', 'soap', 'plate', 'ball', 'watch',
] as const; // prettier-ignore
const CONTAINERS_PER_ROOM = 2;
const MAX_PER_CONTAINER = 2;
const DISTRACTORS = 4;

const HEADS = ['look', 'go', 'open', 'take', 'put'] as const;
/** turn and token limits (MicroEnvSpec.limits) */
const LIMITS = { maxTurns: 6, maxActionTokens: 4, maxObsTokens: 6, maxPromptTokens: 6, skillTokens: 6 };
const WORDS: readonly string[] = [
  ...HEADS,
  ...HOUSE_ROOMS,
  ...HOUSE_CONTAINERS,
  ...HOUSE_OBJECTS,
  ...['in', 'usually', 'has', 'is', 'empty', 'nothing', 'you', 'hold', 'done'],
  ...['no', 'such', 'room', 'not', 'here', 'cannot', 'take', 'put', 'bad', 'command'].filter(
    (w) => !(HEADS as readonly string[]).includes(w),
  ),
];

// state layout (Int32 slots per episode)
const S_ROOM = 0; // current room index
const S_HELD = 1; // held object index or -1
const S_OPEN = 2; // bitmask of opened containers
const S_SUCCESS = 3;
const S_LOC = 4; // + object index: container index, -1 absent, -2 held
const STATE_SIZE = S_LOC + HOUSE_OBJECTS.length;
const LOC_ABSENT = -1;
const LOC_HELD = -2;

export interface HouseWorld {
  object: number;
  targetContainer: number;
  targetRoom: number;
  sourceRoom: number;
  sourceContainer: number;
  /** room of each container */
  containerRoom: readonly number[];
  /** containers of each room (ascending), hall: none */
  roomContainers: readonly (readonly number[])[];
  /** initial container of each object, -1 absent */
  objectAt: readonly number[];
}

export class HouseEnv extends MicroEnv<HouseWorld> {
  /** universe: the room where each object usually is (1..5) */
  readonly usualRoom: readonly number[];
  /** negative control / skill-reading teacher training: every task draws the object's room (EnvOptions.randomFacts) */
  readonly randomFacts: boolean;
  private readonly roomIds: readonly number[];
  private readonly containerIds: readonly number[];
  private readonly objectIds: readonly number[];
  private readonly kindOf: Int8Array; // vocab id → 1 room, 2 container, 3 object
  private readonly indexOf: Int8Array; // vocab id → index within its kind
  private readonly w: Record<string, number>;
  private readonly errors: Record<'noRoom' | 'notHere' | 'cannotTake' | 'cannotPut' | 'bad', readonly number[]>;

  constructor(options: Partial<EnvOptions> = {}) {
    const o = resolveEnvOptions(options);
    const u = deriveRng(o.seed, hashString('house-universe'));
    const rooms = HOUSE_ROOMS.length - 1;
    const usualRoom = HOUSE_OBJECTS.map(() => 1 + u.int(rooms));
    const skills: SkillEntry[] = HOUSE_OBJECTS.map((obj, i) => {
      const r = usualRoom[i] as number;
      const wrong = 1 + ((r - 1 + 1 + u.int(rooms - 1)) % rooms);
      return {
        keywords: [obj],
        text: `${obj} usually in ${HOUSE_ROOMS[r]}`,
        misleadingText: `${obj} usually in ${HOUSE_ROOMS[wrong]}`,
      };
    });
    super(
      { name: 'house', words: WORDS, heads: HEADS, limits: LIMITS, skills, stateSize: STATE_SIZE, randomFacts: true },
      o,
    );
    this.usualRoom = usualRoom;
    this.randomFacts = o.randomFacts === true;
    const v = this.vocab;
    this.roomIds = HOUSE_ROOMS.map((x) => v.id(x));
    this.containerIds = HOUSE_CONTAINERS.map((x) => v.id(x));
    this.objectIds = HOUSE_OBJECTS.map((x) => v.id(x));
    this.kindOf = new Int8Array(v.size);
    this.indexOf = new Int8Array(v.size).fill(-1);
    [this.roomIds, this.containerIds, this.objectIds].forEach((ids, kind) =>
      ids.forEach((id, i) => {
        this.kindOf[id] = kind + 1;
        this.indexOf[id] = i;
      }),
    );
    this.w = Object.fromEntries(
      ['look', 'go', 'open', 'take', 'put', 'has', 'is', 'empty', 'nothing', 'you', 'hold', 'in', 'done'].map((x) => [
        x,
        v.id(x),
      ]),
    );
    this.errors = {
      noRoom: v.encode('no such room'),
      notHere: v.encode('not here'),
      cannotTake: v.encode('cannot take'),
      cannotPut: v.encode('cannot put'),
      bad: v.encode('bad command'),
    };
  }

  protected draft(rng: Rng): WorldDraft<HouseWorld> {
    const perm = rng.shuffle(HOUSE_CONTAINERS.map((_, i) => i));
    const containerRoom = new Array<number>(HOUSE_CONTAINERS.length).fill(0);
    const roomContainers: number[][] = HOUSE_ROOMS.map(() => []);
    perm.forEach((c, k) => {
      const room = 1 + Math.floor(k / CONTAINERS_PER_ROOM);
      containerRoom[c] = room;
      (roomContainers[room] as number[]).push(c);
    });
    roomContainers.forEach((cs) => cs.sort((a, b) => a - b));
    const object = rng.int(HOUSE_OBJECTS.length);
    const rooms = HOUSE_ROOMS.length - 1;
    // randomFacts draws only when on, so the fixed universe's tasks are unchanged
    const sourceRoom = this.randomFacts ? 1 + rng.int(rooms) : (this.usualRoom[object] as number);
    const sourceContainer = rng.pick(roomContainers[sourceRoom] as number[]);
    const targetContainer = rng.pick(HOUSE_CONTAINERS.map((_, i) => i).filter((c) => containerRoom[c] !== sourceRoom));
    const targetRoom = containerRoom[targetContainer] as number;
    const objectAt = new Array<number>(HOUSE_OBJECTS.length).fill(LOC_ABSENT);
    objectAt[object] = sourceContainer;
    const fill = new Array<number>(HOUSE_CONTAINERS.length).fill(0);
    fill[sourceContainer] = 1;
    const others = rng.shuffle(HOUSE_OBJECTS.map((_, i) => i).filter((i) => i !== object)).slice(0, DISTRACTORS);
    for (const d of others) {
      const c = rng.pick(HOUSE_CONTAINERS.map((_, i) => i).filter((i) => (fill[i] as number) < MAX_PER_CONTAINER));
      objectAt[d] = c;
      fill[c] = (fill[c] as number) + 1;
    }
    const goal = `put ${HOUSE_OBJECTS[object]} in ${HOUSE_ROOMS[targetRoom]} ${HOUSE_CONTAINERS[targetContainer]}`;
    return {
      goal,
      world: {
        object,
        targetContainer,
        targetRoom,
        sourceRoom,
        sourceContainer,
        containerRoom,
        roomContainers,
        objectAt,
      },
      splitKey: goal,
      skill: this.randomFacts
        ? {
            text: `${HOUSE_OBJECTS[object]} usually in ${HOUSE_ROOMS[sourceRoom]}`,
            misleadingText: `${HOUSE_OBJECTS[object]} usually in ${HOUSE_ROOMS[1 + ((sourceRoom + rng.int(rooms - 1)) % rooms)]}`,
          }
        : undefined,
    };
  }

  initState(world: HouseWorld, s: Int32Array, o: number): void {
    s[o + S_ROOM] = 0;
    s[o + S_HELD] = -1;
    s[o + S_OPEN] = 0;
    s[o + S_SUCCESS] = 0;
    for (let i = 0; i < HOUSE_OBJECTS.length; i++) s[o + S_LOC + i] = world.objectAt[i] as number;
  }

  private describeRoom(world: HouseWorld, room: number, out: number[]): void {
    out.push(this.roomIds[room] as number, this.w.has as number);
    const cs = world.roomContainers[room] as readonly number[];
    if (cs.length === 0) out.push(this.w.nothing as number);
    for (const c of cs) out.push(this.containerIds[c] as number);
  }

  /** index of `id` if it is a word of `kind` (1 room, 2 container, 3 object), else -1 */
  private idx(id: number, kind: number): number {
    return this.kindOf[id] === kind ? (this.indexOf[id] as number) : -1;
  }

  apply(world: HouseWorld, s: Int32Array, o: number, action: readonly number[], nArgs: number, out: number[]): number {
    const w = this.w;
    const head = action[0] as number;
    const a1 = action[1] as number;
    const a2 = action[2] as number;
    const room = s[o + S_ROOM] as number;
    if (head === w.look) {
      if (nArgs !== 0) return this.reject(this.errors.bad, out);
      this.describeRoom(world, room, out);
      return Outcome.none;
    }
    if (head === w.go) {
      if (nArgs !== 1) return this.reject(this.errors.bad, out);
      const r = this.idx(a1, 1);
      if (r < 0) return this.reject(this.errors.noRoom, out);
      s[o + S_ROOM] = r;
      this.describeRoom(world, r, out);
      return Outcome.none;
    }
    if (head === w.open) {
      if (nArgs !== 1) return this.reject(this.errors.bad, out);
      const c = this.idx(a1, 2);
      if (c < 0 || world.containerRoom[c] !== room) return this.reject(this.errors.notHere, out);
      s[o + S_OPEN] = (s[o + S_OPEN] as number) | (1 << c);
      out.push(a1);
      const before = out.length;
      out.push(w.has as number);
      for (let i = 0; i < HOUSE_OBJECTS.length; i++) if (s[o + S_LOC + i] === c) out.push(this.objectIds[i] as number);
      if (out.length === before + 1) {
        out[before] = w.is as number;
        out.push(w.empty as number);
      }
      return Outcome.none;
    }
    if (head === w.take) {
      if (nArgs !== 1) return this.reject(this.errors.bad, out);
      const x = this.idx(a1, 3);
      const c = x < 0 ? -1 : (s[o + S_LOC + x] as number);
      const visible = c >= 0 && world.containerRoom[c] === room && ((s[o + S_OPEN] as number) & (1 << c)) !== 0;
      if (!visible || s[o + S_HELD] !== -1) return this.reject(this.errors.cannotTake, out);
      s[o + S_LOC + x] = LOC_HELD;
      s[o + S_HELD] = x;
      out.push(w.you as number, w.hold as number, a1);
      return Outcome.none;
    }
    if (head === w.put) {
      if (nArgs !== 2) return this.reject(this.errors.bad, out);
      const x = this.idx(a1, 3);
      const c = this.idx(a2, 2);
      if (x < 0 || c < 0 || s[o + S_HELD] !== x || world.containerRoom[c] !== room) {
        return this.reject(this.errors.cannotPut, out);
      }
      s[o + S_HELD] = -1;
      s[o + S_LOC + x] = c;
      s[o + S_OPEN] = (s[o + S_OPEN] as number) | (1 << c);
      if (x === world.object && c === world.targetContainer) {
        s[o + S_SUCCESS] = 1;
        out.push(w.done as number);
        return Outcome.done | Outcome.success;
      }
      out.push(a1, w.in as number, a2);
      return Outcome.none;
    }
    return this.reject(this.errors.bad, out);
  }

  score(_world: HouseWorld, s: Int32Array, o: number): number {
    return s[o + S_SUCCESS] === 1 ? 1 : 0;
  }

  validActions(world: HouseWorld, s: Int32Array, o: number): string[][] {
    const room = s[o + S_ROOM] as number;
    const held = s[o + S_HELD] as number;
    const acts: string[][] = [['look']];
    HOUSE_ROOMS.forEach((r, i) => i !== room && acts.push(['go', r]));
    const here = world.roomContainers[room] as readonly number[];
    for (const c of here) acts.push(['open', HOUSE_CONTAINERS[c] as string]);
    if (held < 0) {
      for (let i = 0; i < HOUSE_OBJECTS.length; i++) {
        const c = s[o + S_LOC + i] as number;
        if (c >= 0 && here.includes(c) && ((s[o + S_OPEN] as number) & (1 << c)) !== 0) {
          acts.push(['take', HOUSE_OBJECTS[i] as string]);
        }
      }
    } else {
      for (const c of here) acts.push(['put', HOUSE_OBJECTS[held] as string, HOUSE_CONTAINERS[c] as string]);
    }
    return acts;
  }

  expertPlan(world: HouseWorld): string[][] {
    const obj = HOUSE_OBJECTS[world.object] as string;
    return [
      ['go', HOUSE_ROOMS[world.sourceRoom] as string],
      ['open', HOUSE_CONTAINERS[world.sourceContainer] as string],
      ['take', obj],
      ['go', HOUSE_ROOMS[world.targetRoom] as string],
      ['put', obj, HOUSE_CONTAINERS[world.targetContainer] as string],
    ];
  }

  /**
   * Searches `rooms` in order: go, open the room's containers (as listed) until the object shows, then take it,
   * go to the target room and put it. Reads only the goal and the observations.
   */
  private static *search(goal: string, rooms: readonly string[]): Generator<string[], void, readonly string[]> {
    const [, obj, , troom, tcont] = goal.split(' ') as [string, string, string, string, string];
    for (const room of rooms) {
      const seen = yield ['go', room]; // "<room> has c1 c2"
      for (const c of seen.slice(2)) {
        const inside = yield ['open', c]; // "<c> has x y" | "<c> is empty"
        if (inside.slice(2).includes(obj)) {
          yield ['take', obj];
          yield ['go', troom];
          yield ['put', obj, tcont];
          return;
        }
      }
    }
  }

  /** rooms other than the hall and the goal's target room (the object is never already there) */
  private static candidateRooms(goal: string): string[] {
    const troom = goal.split(' ')[3];
    return HOUSE_ROOMS.slice(1).filter((r) => r !== troom);
  }

  explorer(task: EnvTask<HouseWorld>, rng: Rng): EpisodePolicy {
    const rooms = rng.shuffle(HouseEnv.candidateRooms(task.goal));
    return scriptedPolicy(() => HouseEnv.search(task.goal, rooms));
  }

  skillFollower(task: EnvTask<HouseWorld>, rng: Rng): EpisodePolicy {
    const told = task.skill.split(' ').at(-1) as string; // "<object> usually in <room>"
    const rest = rng.shuffle(HouseEnv.candidateRooms(task.goal).filter((r) => r !== told));
    return scriptedPolicy(() => HouseEnv.search(task.goal, [told, ...rest]));
  }
}
