// Per fact: how the final policy does on the test tasks whose retrieved skill entry is misleading — the facts a
// skill-following teacher gets wrong. A student pinned to its teacher fails them as the teacher does; one that left
// the teacher (RetireOPD after retirement, pure GRPO) can relearn them from the sparse reward. A fact is keyed by
// the misleading text the teacher was shown (one skill-bank entry: a service, a file kind and a wrong directory in
// the shell environment), so runs of the same environment seed name the same facts. The evaluation stage records
// these in summary.json (`misleadingFacts`); the protocol report (protocolReport.ts) compares arms per fact.

/** One misleading skill entry and the final policy's test success on the tasks that retrieve it. */
export interface FactOutcome {
  /** the misleading skill text the teacher sees for this entry (the fact's name) */
  skill: string;
  /** distinct test tasks that retrieve this entry */
  tasks: number;
  /** mean success over those tasks' episodes (every attempt of each task), in [0, 1] */
  successRate: number;
}

/** A fact is relearned when the student solves its tasks at least this often (the teacher, misled, mostly fails). */
export const RELEARNED_SUCCESS = 0.5;

/** The task fields the grouping reads (core/env/types.ts's Task). */
export interface FactTask {
  readonly skillMisleading: boolean;
  readonly skill?: string;
}

/**
 * `episodes[i]` is an episode of task `episodeTasks[i]` with success `success[i]` (0/1); tasks repeated for several
 * attempts are the same object. Returns one row per misleading entry, sorted by its text; [] when none is misleading.
 */
export function misleadingFacts(episodeTasks: readonly FactTask[], success: ArrayLike<number>): FactOutcome[] {
  const byFact = new Map<string, { tasks: Set<FactTask>; sum: number; n: number }>();
  episodeTasks.forEach((t, i) => {
    if (!t.skillMisleading) return;
    const key = t.skill ?? '(skill text not recorded)';
    const f = byFact.get(key) ?? { tasks: new Set<FactTask>(), sum: 0, n: 0 };
    f.tasks.add(t);
    f.sum += success[i] as number;
    f.n += 1;
    byFact.set(key, f);
  });
  return [...byFact.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([skill, f]) => ({ skill, tasks: f.tasks.size, successRate: f.sum / f.n }));
}
