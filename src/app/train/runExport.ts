// A run's student log as the lab's metrics.jsonl (what `npm run experiment` writes: one JSON object per step,
// non-finite numbers as null), and the gate replay settings that reproduce the run's own gate over it.
import type { ExperimentConfig } from '../../core/experiment/config';
import { REPLAY_SCHEDULES, type ReplaySchedule } from '../../core/replay/gateReplay';
import type { MetricsLine } from '../../engine/trainer/events';
import { DEFAULT_SETTINGS, type ReplaySettings } from '../replay/replayModel';

export function metricsJsonl(lines: readonly MetricsLine[]): string {
  return lines
    .map((line) => JSON.stringify(line, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v)))
    .join('\n')
    .concat(lines.length > 0 ? '\n' : '');
}

/**
 * Replay settings equal to the run's gate: S_T as the run measured it, W, δ, γ, ε from the config. Null when the
 * run's schedule is not a gate the replay has (never, none, fixed:N, linear:N do not depend on the log).
 */
export function replaySettingsFor(config: ExperimentConfig, teacherPerformance: number | null): ReplaySettings | null {
  const schedule = config.student.schedule;
  if (!(REPLAY_SCHEDULES as readonly string[]).includes(schedule) || teacherPerformance === null) return null;
  const g = config.student.gate;
  return {
    ...DEFAULT_SETTINGS,
    teacherPerformance: String(teacherPerformance),
    windowSize: String(g.windowSize),
    alignmentThreshold: String(g.alignmentThreshold),
    competenceThreshold: String(g.competenceThreshold),
    denominatorEpsilon: String(g.denominatorEpsilon),
    schedule: schedule as ReplaySchedule,
  };
}
