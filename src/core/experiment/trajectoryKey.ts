// The trajectory key: the part of a resolved experiment config that decides every student step's computation
// except the λ_opd schedule's own decisions. Two runs with the same trajectory key train bit for bit alike for as
// long as their schedules plan the same steps (the same λ_opd, the teacher run or skipped): RetireOPD and OPD
// throughout until the trigger, the gate's ablations (competence-only, alignment-only) until the earlier of their
// triggers, fixed:N with N at RetireOPD's trigger for the whole student stage. A sweep trains such runs once, as a
// leader with followers that each leave it where their schedule first plans a step differently
// (src/engine/trainer/followers.ts). The prefix (configPrefix.ts) is part of the key. Pure TS.
import { CONFIG_KEY_STAGES, runsTeacherStage } from './configPrefix';
import { getConfigValue, type ExperimentConfig } from './config';
import { parseScheduleSpec } from '../methodVocabulary';

/**
 * The keys a follower may differ on from its leader: the run's name, the schedule and its gate (their decisions
 * are compared step by step), and the final evaluation (each follower runs its own, after it has left).
 */
export function isTrajectoryFreeKey(key: string): boolean {
  return (
    key === 'name' || key === 'student.schedule' || key.startsWith('student.gate.') || key.startsWith('evaluation.')
  );
}

const TRAJECTORY_KEYS = Object.keys(CONFIG_KEY_STAGES).filter((k) => !isTrajectoryFreeKey(k));

/**
 * Canonical JSON of every key outside isTrajectoryFreeKey (in CONFIG_KEY_STAGES order) and whether the teacher
 * stage runs. Equal keys ⇔ the two runs' student steps compute the same thing whenever their schedules plan alike.
 */
export function trajectoryKeyOf(cfg: ExperimentConfig): string {
  return JSON.stringify([
    ...TRAJECTORY_KEYS.map((k) => [k, getConfigValue(cfg, k)]),
    ['teacherStage', runsTeacherStage(cfg)],
  ]);
}

/**
 * How long a run's schedule keeps the teacher, as a rank for choosing the leader among runs of one trajectory key
 * (higher leads): OPD throughout (never) keeps it every step, the gated schedules until their gate retires it, the
 * step schedules until their step, GRPO (none) not at all. The runs that leave a leader carry their steps after they
 * part; when the leader is the run that keeps the teacher longest, those are the cheaper steps without a teacher
 * forward, which is what another lane continues.
 */
export function teacherHorizonRank(cfg: ExperimentConfig): number {
  const kind = parseScheduleSpec(cfg.student.schedule).kind;
  switch (kind) {
    case 'never':
      return 3;
    case 'adaptive':
    case 'alignment-only':
    case 'competence-only':
      return 2;
    case 'fixed':
    case 'linear':
      return 1;
    case 'none':
      return 0;
    default: {
      const unknown: never = kind;
      throw new Error(`unknown schedule kind ${String(unknown)}`);
    }
  }
}
