// Look inside trajectories: sample episodes from the current student (and from the teacher with its skill) on
// chosen tasks, and give every token its class and, per policy token, the student's and the teacher's log-prob —
// the per-token pieces of the OPD gap g = token-mean(log π_T − log π_θ) of docs/METHODS.md §3. Sampling and
// log-probs are the trainer's own: rollout() and sequenceLogProbs() of rollout.ts, and the teacher's scoring of a
// student stream from teacherView.ts, the path the OPD update uses (no copy). Forward only;
// nothing is trained or stored. Everything returned is plain JSON-serialisable data (it crosses to the page).
import { renderTrajectory } from '../core/env/render';
import { TokenClass, type AgentEnv, type Split, type Task } from '../core/env/types';
import type { PolicyModel } from './model';
import { isPolicyClass, rollout, sequenceLogProbs, type RolloutBatch } from './rollout';
import { teacherOnStudentTargets } from './teacherView';
import { disposeTensors, packSequences, toTensors } from './sequenceBatch';

export interface ProbeToken {
  readonly id: number;
  readonly text: string;
  /** TokenClass value */
  readonly cls: number;
  /** log π_θ(token | prefix) of the student (temperature 1); null where the policy did not write the token */
  readonly student: number | null;
  /** log π_T(token | skill, prefix) of the teacher; null where the policy did not write it or there is no teacher */
  readonly teacher: number | null;
}

export interface ProbeEpisode {
  /** whose sample this is: the student (no skill) or the teacher (with its skill segment) */
  readonly policy: 'student' | 'teacher';
  readonly split: Split;
  readonly taskIndex: number;
  readonly goal: string;
  readonly skill: string;
  readonly reward: number;
  readonly success: boolean;
  readonly turns: number;
  /** the student-view stream (prompt, actions, observations), one entry per token */
  readonly tokens: ProbeToken[];
  /** the environment's own text rendering of the episode (src/core/env/render.ts, compact) */
  readonly rendering: string;
  /** mean over policy tokens of (teacher − student) log-prob: this episode's g; null without a teacher */
  readonly gap: number | null;
}

export interface ProbeRequest {
  readonly split: Split;
  readonly taskIndices: readonly number[];
  /** sampling seed (the same seed, weights and backend give the same episodes) */
  readonly seed: number;
  /** also sample the teacher, with its skill, on the same tasks */
  readonly teacherEpisodes: boolean;
}

/** The batch without its leading skill segment: the student's view of a teacher-sampled episode. */
function withoutSkill(batch: RolloutBatch): RolloutBatch {
  const S = batch.skillTokens;
  if (S === 0) return batch;
  const N = batch.size;
  const T = batch.length - S;
  const cut = <A extends Int32Array | Float32Array>(a: A, make: (n: number) => A): A => {
    const out = make(N * T);
    for (let b = 0; b < N; b++) out.set(a.subarray(b * batch.length + S, (b + 1) * batch.length), b * T);
    return out;
  };
  return {
    ...batch,
    length: T,
    tokens: cut(batch.tokens, (n) => new Int32Array(n)),
    classes: cut(batch.classes, (n) => new Int32Array(n)),
    oldLogProbs: cut(batch.oldLogProbs, (n) => new Float32Array(n)),
    entropy: cut(batch.entropy, (n) => new Float32Array(n)),
    lengths: batch.lengths.map((l) => l - S),
    skillTokens: 0,
  };
}

/**
 * The teacher's log-prob of each policy token of a student-view batch ([N·T], aligned with batch.tokens, 0 elsewhere),
 * scored by teacherView.ts with each row's task's skill in front: its value for target t is token t + 1's.
 */
async function teacherTokenLogProbs(
  teacher: PolicyModel,
  batch: RolloutBatch,
  tasks: readonly Task[],
): Promise<Float32Array> {
  const T = batch.length;
  const packed = packSequences(
    Array.from({ length: batch.size }, (_, b) => {
      const n = batch.lengths[b] as number;
      return { tokens: batch.tokens.subarray(b * T, b * T + n), classes: batch.classes.subarray(b * T, b * T + n) };
    }),
  );
  const rowTasks = Array.from({ length: batch.size }, (_, b) => tasks[batch.taskIndex[b] as number] as Task);
  const t = toTensors(packed);
  let lp: Float32Array;
  try {
    const { logProbs } = teacherOnStudentTargets(teacher, packed, rowTasks, t.targets, false);
    try {
      lp = (await logProbs.data()) as Float32Array;
    } finally {
      logProbs.dispose();
    }
  } finally {
    disposeTensors(t);
  }
  const out = new Float32Array(batch.size * T);
  for (let b = 0; b < batch.size; b++) {
    for (let k = 1; k < (batch.lengths[b] as number); k++)
      if (isPolicyClass(batch.classes[b * T + k] as number)) out[b * T + k] = lp[b * packed.seqLen + k - 1] as number;
  }
  return out;
}

function episodes(
  env: AgentEnv,
  policy: 'student' | 'teacher',
  split: Split,
  tasks: readonly Task[],
  batch: RolloutBatch,
  studentLp: Float32Array,
  teacherLp: Float32Array | null,
): ProbeEpisode[] {
  const out: ProbeEpisode[] = [];
  const T = batch.length;
  for (let b = 0; b < batch.size; b++) {
    const task = tasks[batch.taskIndex[b] as number] as Task;
    const n = batch.lengths[b] as number;
    const tokens: ProbeToken[] = [];
    let gapSum = 0;
    let gapCount = 0;
    for (let t = 0; t < n; t++) {
      const id = batch.tokens[b * T + t] as number;
      const cls = batch.classes[b * T + t] as number;
      const written = isPolicyClass(cls) && t > 0;
      const s = written ? (studentLp[b * T + t] as number) : null;
      const te = written && teacherLp ? (teacherLp[b * T + t] as number) : null;
      if (s !== null && te !== null) {
        gapSum += te - s;
        gapCount += 1;
      }
      tokens.push({ id, text: env.vocab.words[id] ?? '?', cls, student: s, teacher: te });
    }
    const trajectory = {
      task,
      tokens: tokens.map((k) => k.id),
      classes: tokens.map((k) => k.cls as TokenClass),
      reward: batch.reward[b] as number,
      success: batch.success[b] === 1,
      turns: batch.turns[b] as number,
    };
    out.push({
      policy,
      split,
      taskIndex: task.index,
      goal: task.goal,
      skill: task.skill ?? '',
      reward: trajectory.reward,
      success: trajectory.success,
      turns: trajectory.turns,
      tokens,
      rendering: renderTrajectory(env.vocab, trajectory, { style: 'compact', showSkill: policy === 'teacher' }),
      gap: gapCount > 0 ? gapSum / gapCount : null,
    });
  }
  return out;
}

/**
 * One student episode per task (and one teacher episode per task when asked and a teacher exists), with per-token
 * classes and log-probs. The student's log-probs of its own tokens are the rollout's log π at temperature 1; of the
 * teacher's tokens, one student forward over the stream without the skill segment.
 */
export async function probeTrajectories(
  env: AgentEnv,
  student: PolicyModel,
  teacher: PolicyModel | null,
  request: ProbeRequest,
): Promise<ProbeEpisode[]> {
  if (request.taskIndices.length === 0) throw new Error('probe: choose at least one task');
  const tasks = request.taskIndices.map((i) => env.task(request.split, i));
  const sampling = { groupSize: 1, temperature: 1, topP: 1, seed: request.seed };
  const sBatch = await rollout(student, env, tasks, sampling);
  const sTeacher = teacher ? await teacherTokenLogProbs(teacher, sBatch, tasks) : null;
  const result = episodes(env, 'student', request.split, tasks, sBatch, sBatch.oldLogProbs, sTeacher);
  if (request.teacherEpisodes && teacher) {
    const tBatch = withoutSkill(await rollout(teacher, env, tasks, { ...sampling, withSkill: true }));
    const tStudent = await sequenceLogProbs(student, tBatch);
    result.push(...episodes(env, 'teacher', request.split, tasks, tBatch, tStudent, tBatch.oldLogProbs));
  }
  return result;
}
