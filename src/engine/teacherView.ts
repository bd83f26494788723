// The teacher's view of a stream, one path for the whole engine: the teacher sees each task's fixed-length skill
// segment in front of the student's stream (`<skill> … <pad>… <bos> prompt… <act> …`, env/stream.ts's teacher
// prefix). Sampling in that view is rollout.ts's `withSkill` option; scoring a student's stream in it is
// teacherOnStudentTargets below — used by the OPD update (policyUpdate.ts) and the trajectory viewer alike.
import * as tf from '@tensorflow/tfjs';
import type { Task } from '../core/env/types';
import { tokenLogProbs } from './losses/tokenLogProbs';
import type { PolicyModel } from './model';
import { packSequences, type PackedSequences } from './sequenceBatch';

/** Unpack a padded batch into per-row streams (to re-pack with a prefix). */
function rows(p: PackedSequences): { tokens: Int32Array; classes: Int32Array }[] {
  return Array.from({ length: p.batch }, (_, b) => {
    const o = b * p.seqLen;
    const n = p.lengths[b] as number;
    return { tokens: p.tokens.subarray(o, o + n), classes: p.classes.subarray(o, o + n) };
  });
}

/** The teacher's view of a student batch: row b's task's skill segment, then the stream (positions shift by S). */
export function withSkillPrefix(p: PackedSequences, tasks: readonly Task[]): PackedSequences {
  return packSequences(rows(p).map((r, b) => ({ ...r, prefix: (tasks[b] as Task).skillTokens })));
}

/**
 * The teacher's log-probs of the student's targets, [B, T] (and its logits [B, T, V] when `withLogits`), from one
 * batched forward with each row's skill segment prepended: teacher position S + t predicts student target t
 * (`targets` [B, T] int32: token t + 1 of each row, as sequenceBatch.ts's toTensors gives them). Row b is scored
 * with tasks[b]'s skill. The caller disposes the returned tensors.
 */
export function teacherOnStudentTargets(
  teacher: PolicyModel,
  student: PackedSequences,
  tasks: readonly Task[],
  targets: tf.Tensor,
  withLogits: boolean,
): { logProbs: tf.Tensor; logits: tf.Tensor | null } {
  const tv = withSkillPrefix(student, tasks);
  const S = (tasks[0] as Task).skillTokens.length;
  const out = tf.tidy(() => {
    const tt = tf.tensor2d(tv.tokens, [tv.batch, tv.seqLen], 'int32');
    const logits = tf.slice(teacher.forward(tt, tv.lengths), [0, S, 0], [tv.batch, student.seqLen, -1]);
    const lp = tokenLogProbs(logits, targets);
    return withLogits ? [lp, logits] : [lp];
  });
  return { logProbs: out[0] as tf.Tensor, logits: out[1] ?? null };
}
