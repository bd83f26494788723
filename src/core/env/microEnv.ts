// The machinery shared by the three micro-environments: options, limits, seeded split-disjoint task generation,
// the SkillBank, batched episodes, scripted rollouts and trajectories. Each environment subclass supplies its
// world (opaque per-task data), its transition function over a small Int32Array state, and its scripted policies.
// (~360 lines on purpose: the base class is the one place the three environments share; splitting it would scatter
// the episode loop every environment relies on.)
import { createRng, deriveRng, hashInts, hashString, type Rng } from '../rng';
import { EpisodeBatchImpl, Outcome, type EnvDynamics } from './episodeBatch';
import { SkillBank, type SkillEntry } from './skillBank';
import { studentPrefix } from './stream';
import {
  SPLITS,
  Special,
  TokenClass,
  type AgentEnv,
  type Demonstrator,
  type EnvLimits,
  type EnvName,
  type EnvOptions,
  type Split,
  type Task,
  type Trajectory,
  type Vocabulary,
} from './types';
import { createVocabulary } from './vocabulary';

export const DEFAULT_ENV_OPTIONS: EnvOptions = { seed: 0, misleadingSkillFraction: 0.2, invalidActionPenalty: 0.1 };

/** Percent buckets of the split hash: [0, 80) train, [80, 90) validation, [90, 100) test. */
const SPLIT_BUCKETS: Record<Split, [number, number]> = { train: [0, 80], validation: [80, 90], test: [90, 100] };
const SPLIT_IDS: Record<Split, number> = { train: 1, validation: 2, test: 3 };
const MAX_GENERATION_ATTEMPTS = 10_000;

export type LimitsWithoutContext = Omit<EnvLimits, 'contextTokens'>;

/** The student-stream bound of a set of limits (see EnvLimits.contextTokens). */
function contextTokensOf(l: LimitsWithoutContext): number {
  return l.maxPromptTokens + l.maxTurns * (1 + l.maxActionTokens + l.maxObsTokens) + 1;
}

/** Validate user options (unknown keys rejected by name) and fill defaults. */
export function resolveEnvOptions(options: Partial<EnvOptions> = {}): EnvOptions {
  const known = new Set(['seed', 'misleadingSkillFraction', 'invalidActionPenalty', 'maxTurns', 'randomFacts']);
  for (const key of Object.keys(options)) {
    if (!known.has(key)) throw new Error(`env options: unknown key "${key}" (known: ${[...known].join(', ')})`);
  }
  const o: EnvOptions = { ...DEFAULT_ENV_OPTIONS, ...options };
  if (!Number.isInteger(o.seed) || o.seed < 0 || o.seed >= 2 ** 32) {
    throw new Error(`env options: seed must be an integer in [0, 2^32), got ${o.seed}`);
  }
  if (!(o.misleadingSkillFraction >= 0 && o.misleadingSkillFraction <= 1)) {
    throw new Error(`env options: misleadingSkillFraction must be in [0, 1], got ${o.misleadingSkillFraction}`);
  }
  if (!(o.invalidActionPenalty >= 0 && Number.isFinite(o.invalidActionPenalty))) {
    throw new Error(`env options: invalidActionPenalty must be a finite number ≥ 0, got ${o.invalidActionPenalty}`);
  }
  if (o.randomFacts !== undefined && typeof o.randomFacts !== 'boolean') {
    throw new Error(`env options: randomFacts must be true or false, got ${String(o.randomFacts)}`);
  }
  if (o.maxTurns !== undefined && !(Number.isInteger(o.maxTurns) && o.maxTurns >= 1)) {
    throw new Error(`env options: maxTurns must be a positive integer, got ${o.maxTurns}`);
  }
  return o;
}

/** A task with its environment's world attached. */
export interface EnvTask<W> extends Task {
  readonly skill: string;
  readonly world: W;
  /** what decides the split: tasks with equal keys are always in the same split */
  readonly splitKey: string;
}

/** A scripted per-episode policy. `observation` = the words of the last observation (no markers), [] at start. */
export interface EpisodePolicy {
  act(observation: readonly string[], validActions: () => string[][]): string[];
}

export type BaselineName = 'expert' | 'explorer' | 'skillFollower' | 'random';

export interface WorldDraft<W> {
  goal: string;
  world: W;
  splitKey: string;
  /**
   * this task's own skill texts (the negative control, where facts are drawn per task); undefined = the SkillBank
   * entry's. Which one is shown still follows the retrieved entry's misleading flag.
   */
  skill?: { text: string; misleadingText: string } | undefined;
}

export interface MicroEnvSpec {
  name: EnvName;
  /** environment words (specials are added in front) */
  words: readonly string[];
  heads: readonly string[];
  limits: LimitsWithoutContext;
  skills: readonly SkillEntry[];
  /** Int32 slots of per-episode mutable state */
  stateSize: number;
  /** whether the environment implements the randomFacts negative control (EnvOptions.randomFacts); default false */
  randomFacts?: boolean;
  /**
   * observation for an unparseable action (unknown head, cut, markers inside, wrong arity); words of `words`.
   * Default 'bad command'.
   */
  badActionText?: string;
}

export abstract class MicroEnv<W> implements AgentEnv, EnvDynamics<W> {
  readonly name: EnvName;
  readonly vocab: Vocabulary;
  readonly limits: EnvLimits;
  readonly options: EnvOptions;
  readonly skillBank: SkillBank;
  readonly stateSize: number;
  readonly badActionTokens: readonly number[];
  private readonly headSet: Uint8Array;

  protected constructor(spec: MicroEnvSpec, options: EnvOptions) {
    if (options.randomFacts === true && spec.randomFacts !== true) {
      throw new Error(`env options: randomFacts is not implemented for ${spec.name}`);
    }
    this.name = spec.name;
    this.options = options;
    this.vocab = createVocabulary(spec.words, spec.heads);
    const base = { ...spec.limits, maxTurns: options.maxTurns ?? spec.limits.maxTurns };
    this.limits = { ...base, contextTokens: contextTokensOf(base) };
    if (this.limits.contextTokens + this.limits.skillTokens > 128) {
      throw new Error(
        `${spec.name}: maxTurns ${base.maxTurns} makes episodes of ${this.limits.contextTokens} tokens ` +
          `(+${this.limits.skillTokens} skill tokens for the teacher); at most 128 in all`,
      );
    }
    this.skillBank = new SkillBank(
      spec.skills,
      options.misleadingSkillFraction,
      deriveRng(options.seed, hashString(spec.name), 0x5ce11),
    );
    this.stateSize = spec.stateSize;
    this.badActionTokens = this.vocab.encode(spec.badActionText ?? 'bad command');
    this.headSet = new Uint8Array(this.vocab.size);
    for (const h of this.vocab.actionHeads) this.headSet[h] = 1;
  }

  // ---- what each environment supplies -------------------------------------------------------------------------
  /** one candidate task drawn from rng (the split is decided afterwards from splitKey) */
  protected abstract draft(rng: Rng): WorldDraft<W>;
  abstract initState(world: W, s: Int32Array, o: number): void;
  /**
   * Apply a well-formed action (head = action[0], args = action[1..nArgs], all environment words) to the state at
   * offset o; push the observation word ids (no markers) to `out`; return Outcome flags.
   */
  abstract apply(world: W, s: Int32Array, o: number, action: readonly number[], nArgs: number, out: number[]): number;
  /** terminal score in [0, 1] of an episode the environment ended (not called on turn-limit ends) */
  abstract score(world: W, s: Int32Array, o: number): number;
  /** the actions the environment would accept without error in this state, as words */
  abstract validActions(world: W, s: Int32Array, o: number): string[][];
  /** the optimal plan (the expert knows the whole world); open-loop, as words */
  abstract expertPlan(world: W): string[][];
  /** scripted baselines: exploring without the skill, and following the retrieved skill (then exploring) */
  abstract explorer(task: EnvTask<W>, rng: Rng): EpisodePolicy;
  abstract skillFollower(task: EnvTask<W>, rng: Rng): EpisodePolicy;

  /** an error observation: push its word ids to `out` and return the flags of an invalid action (for apply) */
  protected reject(tokens: readonly number[], out: number[]): number {
    for (const t of tokens) out.push(t);
    return Outcome.invalid;
  }

  // ---- tasks --------------------------------------------------------------------------------------------------
  /** the split a split key belongs to under this seed */
  splitOf(splitKey: string): Split {
    const bucket = hashInts(this.options.seed, hashString(splitKey)) % 100;
    for (const s of SPLITS) {
      const [lo, hi] = SPLIT_BUCKETS[s];
      if (bucket >= lo && bucket < hi) return s;
    }
    return 'test';
  }

  task(split: Split, index: number): EnvTask<W> {
    if (!SPLITS.includes(split)) throw new Error(`task: unknown split "${split}" (expected ${SPLITS.join(', ')})`);
    if (!Number.isInteger(index) || index < 0) throw new Error(`task: index must be an integer ≥ 0, got ${index}`);
    const salt = hashString(this.name);
    for (let attempt = 0; attempt < MAX_GENERATION_ATTEMPTS; attempt++) {
      const d = this.draft(deriveRng(this.options.seed, salt, SPLIT_IDS[split], index, attempt));
      if (this.splitOf(d.splitKey) !== split) continue;
      const retrieved = this.skillBank.retrieve(d.goal);
      if (retrieved === null) throw new Error(`${this.name}: no skill matches the goal "${d.goal}"`);
      const promptTokens = [Special.bos, ...this.vocab.encode(d.goal)];
      if (promptTokens.length > this.limits.maxPromptTokens) {
        throw new Error(`${this.name}: prompt "${d.goal}" exceeds maxPromptTokens ${this.limits.maxPromptTokens}`);
      }
      const skillText =
        d.skill === undefined ? retrieved.text : retrieved.misleading ? d.skill.misleadingText : d.skill.text;
      const skillTokens = [Special.skill, ...this.vocab.encode(skillText)];
      if (skillTokens.length > this.limits.skillTokens) {
        throw new Error(`${this.name}: skill "${skillText}" exceeds skillTokens ${this.limits.skillTokens}`);
      }
      while (skillTokens.length < this.limits.skillTokens) skillTokens.push(Special.pad);
      return {
        env: this.name,
        split,
        index,
        goal: d.goal,
        promptTokens,
        skillTokens,
        skillMisleading: retrieved.misleading,
        skill: skillText,
        world: d.world,
        splitKey: d.splitKey,
      };
    }
    throw new Error(`${this.name}: could not draw a ${split} task in ${MAX_GENERATION_ATTEMPTS} attempts`);
  }

  /** tasks [start, start + count) of a split */
  tasks(split: Split, count: number, start = 0): EnvTask<W>[] {
    const out: EnvTask<W>[] = [];
    for (let i = 0; i < count; i++) out.push(this.task(split, start + i));
    return out;
  }

  // ---- stepping -----------------------------------------------------------------------------------------------
  createBatch(size: number): EpisodeBatchImpl<W> {
    return new EpisodeBatchImpl(this, size);
  }

  /**
   * Number of argument tokens of a well-formed action (head first, <eoa> last, environment words only), or -1.
   * The environment then checks the arity and the world.
   */
  parseAction(action: readonly number[]): number {
    const n = action.length;
    if (n < 2 || n > this.limits.maxActionTokens || action[n - 1] !== Special.eoa) return -1;
    const head = action[0] as number;
    if (head >= this.vocab.size || this.headSet[head] !== 1) return -1;
    for (let i = 1; i < n - 1; i++) {
      const t = action[i] as number;
      if (!(t > Special.unk && t < this.vocab.size)) return -1;
    }
    return n - 2;
  }

  actionClasses(action: readonly number[]): TokenClass[] {
    return action.map((_, i) => (i === 0 ? TokenClass.actionHead : TokenClass.actionArg));
  }

  /** encode an action given as words, appending <eoa> */
  encodeAction(words: readonly string[]): number[] {
    return [...words.map((w) => this.vocab.id(w)), Special.eoa];
  }

  // ---- scripted rollouts --------------------------------------------------------------------------------------
  /** a fresh per-episode policy of one of the scripted baselines; `rng` drives the explorers' choices */
  baseline(name: BaselineName, task: EnvTask<W>, rng: Rng): EpisodePolicy {
    switch (name) {
      case 'expert': {
        const plan = this.expertPlan(task.world);
        let t = 0;
        return { act: () => plan[Math.min(t++, plan.length - 1)] ?? [] };
      }
      case 'explorer':
        return this.explorer(task, rng);
      case 'skillFollower':
        return this.skillFollower(task, rng);
      case 'random':
        // uniform over the heads that have a valid action, then uniform over that head's valid actions
        return {
          act: (_obs, valid) => {
            const all = valid();
            const heads = [...new Set(all.map((a) => a[0]))];
            const head = rng.pick(heads);
            return rng.pick(all.filter((a) => a[0] === head));
          },
        };
    }
  }

  /** run one policy per task in a single batch; returns the trajectories */
  rollout(tasks: readonly EnvTask<W>[], policies: readonly EpisodePolicy[]): Trajectory[] {
    const batch = this.createBatch(tasks.length);
    batch.reset(tasks);
    const tokens = tasks.map((t) => studentPrefix(t));
    const classes: TokenClass[][] = tasks.map((t) =>
      studentPrefix(t).map((tok) =>
        tok === Special.bos || tok === Special.act ? TokenClass.special : TokenClass.prompt,
      ),
    );
    const lastObs: string[][] = tasks.map(() => []);
    const actions: number[][] = tasks.map(() => []);
    for (let turn = 0; turn < this.limits.maxTurns; turn++) {
      let active = 0;
      for (let i = 0; i < tasks.length; i++) {
        if (batch.done[i]) {
          actions[i] = [];
          continue;
        }
        active++;
        const policy = policies[i] as EpisodePolicy;
        const words = policy.act(lastObs[i] as string[], () => batch.validActions(i));
        const a = this.encodeAction(words).slice(0, this.limits.maxActionTokens);
        actions[i] = a;
        (tokens[i] as number[]).push(...a);
        (classes[i] as TokenClass[]).push(...this.actionClasses(a));
      }
      if (active === 0) break;
      batch.step(actions);
      for (let i = 0; i < tasks.length; i++) {
        if ((actions[i] as number[]).length === 0) continue;
        const ob = batch.observation(i);
        (tokens[i] as number[]).push(...ob);
        for (let k = 0; k < ob.length; k++) {
          (classes[i] as TokenClass[]).push(k === ob.length - 1 ? TokenClass.special : TokenClass.observation);
        }
        lastObs[i] = ob.slice(1, ob.length - 1).map((id) => this.vocab.words[id] ?? '<unk>');
      }
    }
    return tasks.map((task, i) => ({
      task,
      tokens: tokens[i] as number[],
      classes: classes[i] as TokenClass[],
      reward: batch.reward[i] as number,
      success: batch.success[i] === 1,
      turns: batch.turns[i] as number,
      invalidActions: batch.invalidActions[i] as number,
    }));
  }

  expert(task: Task): Trajectory {
    const t = this.own(task);
    const [traj] = this.rollout([t], [this.baseline('expert', t, createRng(0))]);
    return traj as Trajectory;
  }

  demonstrate(tasks: readonly Task[], policy: Demonstrator, seed: number): Trajectory[] {
    const rng = deriveRng(seed, hashString(`${this.name}/demonstrations/${policy}`));
    const own = tasks.map((t) => this.own(t));
    const out: Trajectory[] = [];
    for (let start = 0; start < own.length; start += 256) {
      const chunk = own.slice(start, start + 256);
      out.push(
        ...this.rollout(
          chunk,
          chunk.map((t) => this.baseline(policy, t, rng.fork())),
        ),
      );
    }
    return out;
  }

  /** the task as this environment's own (throws for a task of another environment) */
  own(task: Task): EnvTask<W> {
    if (task.env !== this.name || !('world' in task)) {
      throw new Error(`${this.name}: task ${task.split}/${task.index} belongs to environment "${task.env}"`);
    }
    return task as EnvTask<W>;
  }
}
