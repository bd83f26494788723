// From what a view holds to the gate inspector's rows: a replay's result and options, or a live run's state (its
// gate evaluation events, config and S_T from the run's own retire_opd/* metrics). Pure; no React.
import { gateRuleFor, parseScheduleSpec, type GateRule } from '../../core/methodVocabulary';
import { parseGateConfig, type GateConfig } from '../../core/gateConfig';
import { inspectGate, type InspectionRow } from '../../core/gateInspection';
import { gateConfigFor } from '../../core/experiment/gateSettings';
import type { ReplayOptions, ReplayResult } from '../../core/replay/gateReplay';
import type { LogSource } from '../../core/replay/logRecords';
import { metricsJsonl, replaySettingsFor } from '../train/runExport';
import { settingsToOptions } from '../replay/replayModel';
import type { RunState } from '../train/liveRunState';
import { METRIC } from '../../core/runLog/metricKeys';

/** The gate rule of a schedule written as text (core's own mapping; unparseable text only observes). */
function ruleOfSchedule(schedule: string): GateRule {
  try {
    return gateRuleFor(parseScheduleSpec(schedule).kind);
  } catch {
    return 'observe-only';
  }
}

export interface Inspection {
  rows: InspectionRow[];
  config: GateConfig;
  rule: GateRule;
}

export function inspectReplay(result: ReplayResult, options: ReplayOptions): Inspection {
  const config = parseGateConfig({ lambdaOpd: 1, ...options.gate });
  const rule = ruleOfSchedule(options.schedule ?? 'adaptive');
  return { rows: inspectGate(result.evaluations, config, rule), config, rule };
}

/** S_T as the run logged it (retire_opd/teacher_performance of its latest student step), or null before. */
export function liveTeacherPerformance(state: RunState): number | null {
  if (state.summary?.teacherPerformance != null) return state.summary.teacherPerformance;
  if (state.retirement) return state.retirement.teacherPerformance;
  const last = state.steps.student[state.steps.student.length - 1];
  const v = last?.['retire_opd/teacher_performance'];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
}

export interface LiveInspection extends Inspection {
  windowEnds: number[];
  validationSteps: number[];
  lastStep: number;
  /** whether the run's schedule is gated (a what-if can replay its log) */
  gated: boolean;
  /** the run's student log and the replay options equal to its gate, for the what-if; null for non-gated schedules */
  whatIf: { sources: LogSource[]; options: ReplayOptions } | null;
}

/**
 * The inspector for a live (or finished) run; null before the student stage has a config and an S_T. The what-if's
 * log (the whole student metrics.jsonl) is built only when asked for.
 */
export function inspectLiveRun(state: RunState, withWhatIf = true): LiveInspection | null {
  const cfg = state.config;
  const sT = liveTeacherPerformance(state);
  if (!cfg || sT === null) return null;
  const config = parseGateConfig(gateConfigFor(cfg, sT));
  const rule = ruleOfSchedule(cfg.student.schedule);
  const student = state.steps.student;
  const validationSteps = student
    .filter((l) => typeof l[METRIC.valSuccessRate] === 'number' && Number.isFinite(l[METRIC.valSuccessRate]))
    .map((l) => l.step);
  const gatedSettings = replaySettingsFor(cfg, sT);
  const settings = withWhatIf ? gatedSettings : null;
  const text = settings ? metricsJsonl(student) : '';
  return {
    rows: inspectGate(state.evaluations, config, rule),
    config,
    rule,
    windowEnds: state.windows.map((w) => w.step),
    validationSteps,
    lastStep: student[student.length - 1]?.step ?? 0,
    gated: gatedSettings !== null,
    whatIf:
      settings && text !== ''
        ? { sources: [{ name: `${cfg.name}-metrics.jsonl`, text }], options: settingsToOptions(settings) }
        : null,
  };
}
