// Self-distillation's teacher (docs/METHODS.md §3, distillation forms, form `self-distill`): the student itself, scored in the
// teacher's view (the privileged skill segment in front, teacherView.ts), as a FROZEN copy refreshed from the live
// student every N student steps (student.distill.refreshEvery) — at steps 1, N + 1, 2N + 1, … No separately trained
// teacher reaches the loss; the run's shipped or trained teacher is still evaluated for S_T, the gate's competence
// ceiling, so the gate's η means what it means under every form.
//
// The copy lives in the run's models (disposed with them). A run resumed from a checkpoint, or a sweep follower that
// leaves its leader, has no copy yet: it takes one from the student at its first step (the copy is not checkpointed).
import type { PolicyModel } from '../model';
import type { RunModels } from './stages/stageContext';

/** Student step of each copy's last refresh (steps count from 1). */
const refreshedAt = new WeakMap<PolicyModel, number>();

export interface SelfTeacherStep {
  teacher: PolicyModel;
  /** student steps since the copy was taken (0 on a refresh step) */
  age: number;
}

/** The frozen self-teacher for student step k, refreshed from `student` when k starts a new block of N steps. */
export function selfTeacherFor(
  models: RunModels,
  newModel: (name: string) => PolicyModel,
  student: PolicyModel,
  k: number,
  refreshEvery: number,
): SelfTeacherStep {
  if (!Number.isInteger(refreshEvery) || refreshEvery < 1) {
    throw new Error(`student.distill.refreshEvery must be an integer ≥ 1, got ${refreshEvery}`);
  }
  const blockStart = k - ((k - 1) % refreshEvery); // the step that opens k's block: 1, N + 1, …
  let copy = models.selfTeacher;
  if (copy === undefined) {
    copy = newModel('selfTeacher');
    models.selfTeacher = copy;
  }
  const last = refreshedAt.get(copy);
  if (last === undefined || last < blockStart) {
    copy.copyWeightsFrom(student);
    refreshedAt.set(copy, k);
  }
  return { teacher: copy, age: k - (refreshedAt.get(copy) as number) };
}
