// One identity per arm of the lesson, wherever a chart, legend or table shows it (the Overview's recorded runs, the
// population chart of a queue, the compare view's groups): one human name and one colour per method. The colours
// are theme custom properties (app.css: a light and a dark value, each readable as text on its theme's background)
// with the light value as the fallback a downloaded figure uses (chartFrame.ts figureColor).
import type { DemoArm } from '../../core/experiment/demoRecording';
import { parseScheduleSpec, type ScheduleKind } from '../../core/methodVocabulary';

export type Arm = 'retire' | 'opd' | 'grpo' | 'control';

export interface ArmIdentity {
  /** the method's name, as the lesson says it */
  name: string;
  /** on screen: a theme variable with its light value as fallback */
  color: string;
}

export const ARMS: Readonly<Record<Arm, ArmIdentity>> = {
  retire: { name: 'RetireOPD', color: 'var(--arm-retire, #2563eb)' },
  opd: { name: 'OPD throughout', color: 'var(--arm-opd, #c2410c)' },
  grpo: { name: 'GRPO', color: 'var(--arm-grpo, #7c3aed)' },
  control: { name: 'control', color: 'var(--arm-control, #6b7280)' },
};

/** The arms in the order the lesson lists them (legends, compare groups). */
export const ARM_ORDER: readonly Arm[] = ['retire', 'opd', 'grpo', 'control'];

/** The student schedule each arm trains with: RetireOPD's gate, OPD that never retires, no teacher at all. */
const BY_SCHEDULE: Partial<Record<ScheduleKind, Arm>> = { adaptive: 'retire', never: 'opd', none: 'grpo' };

/** The arm a `student.schedule` value makes of a run, or null for a schedule that is none of the lesson's arms. */
export function armOfSchedule(schedule: unknown): Arm | null {
  if (typeof schedule !== 'string') return null;
  try {
    return BY_SCHEDULE[parseScheduleSpec(schedule).kind] ?? null;
  } catch {
    return null;
  }
}

/** The arm of a recorded demo run (public/demo/). */
export function armOfDemo(demo: DemoArm): Arm {
  const arms: Record<DemoArm, Arm> = {
    'retire-shell': 'retire',
    'opd-shell': 'opd',
    'grpo-shell': 'grpo',
    'control-shell': 'control',
  };
  return arms[demo];
}
