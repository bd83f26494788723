// The replay view's logic without React: the settings form (strings as typed, defaults as the CLI's), turning it
// into core ReplayOptions, running the core replay over the chosen files, and describing every failure the way the
// CLI does (FILE:LINE: what is wrong, or the setting at fault). Pure: unit-tested in Node, run in the page.
import { GATE_CONFIG_FIELDS, GATE_DEFAULTS, GateConfigError, type GateConfigField } from '../../core/gateConfig';
import {
  REPLAY_SCHEDULES,
  replayGate,
  replayGateStream,
  type ReplayOptions,
  type ReplayResult,
  type ReplaySchedule,
} from '../../core/replay/gateReplay';
import { type LogFormat, type LogSource, type LogStream, ReplayInputError } from '../../core/replay/logRecords';
import { downsampleSeries, finitePoints, type SeriesPoint } from '../charts/downsampleSeries';

export type FormatChoice = LogFormat | 'auto';

/** The settings as the user typed them; empty optional fields mean the CLI's default. */
export interface ReplaySettings {
  teacherPerformance: string;
  windowSize: string;
  alignmentThreshold: string;
  competenceThreshold: string;
  denominatorEpsilon: string;
  schedule: ReplaySchedule;
  gapKey: string;
  valKey: string;
  format: FormatChoice;
}

export const DEFAULT_SETTINGS: ReplaySettings = {
  teacherPerformance: '',
  windowSize: String(GATE_DEFAULTS.windowSize),
  alignmentThreshold: String(GATE_DEFAULTS.alignmentThreshold),
  competenceThreshold: String(GATE_DEFAULTS.competenceThreshold),
  denominatorEpsilon: String(GATE_DEFAULTS.denominatorEpsilon),
  schedule: 'adaptive',
  gapKey: '',
  valKey: '',
  format: 'auto',
};

export type SettingName = keyof ReplaySettings;

/** Label of each setting as the form shows it (also used in error messages). */
export const SETTING_LABELS: Record<SettingName, string> = {
  teacherPerformance: 'S_T (teacher performance)',
  windowSize: 'W (window)',
  alignmentThreshold: 'δ (alignment threshold)',
  competenceThreshold: 'γ (competence threshold)',
  denominatorEpsilon: 'ε (denominator epsilon)',
  schedule: 'schedule',
  gapKey: 'gap key',
  valKey: 'validation key',
  format: 'format',
};

/** The form's gate settings: every gate config field but λ_opd (gateConfig.ts), under the same name. */
const GATE_SETTINGS = GATE_CONFIG_FIELDS.filter(
  (field): field is Exclude<GateConfigField, 'lambdaOpd'> => field !== 'lambdaOpd',
) satisfies readonly SettingName[];

/** Why a replay could not run, in a form the view can show next to the right control. */
export type ReplayFailure =
  | { kind: 'input'; file: string; line: number; message: string }
  | { kind: 'setting'; setting: SettingName; message: string }
  | { kind: 'internal'; message: string };

export type ReplayOutcome = { ok: true; result: ReplayResult } | { ok: false; failure: ReplayFailure };

class SettingError extends Error {
  constructor(
    readonly setting: SettingName,
    message: string,
  ) {
    super(message);
  }
}

function readNumber(settings: ReplaySettings, name: SettingName, required: boolean): number | undefined {
  const text = String(settings[name]).trim();
  if (text === '') {
    if (required)
      throw new SettingError(name, `${SETTING_LABELS[name]} is required (the teacher's validation score, > 0)`);
    return undefined;
  }
  const value = Number(text);
  if (Number.isNaN(value)) throw new SettingError(name, `${SETTING_LABELS[name]}: expected a number, got "${text}"`);
  return value;
}

/** The core replay options of a settings form; throws a SettingError naming the field. */
export function settingsToOptions(settings: ReplaySettings): ReplayOptions {
  if (!(REPLAY_SCHEDULES as readonly string[]).includes(settings.schedule)) {
    throw new SettingError('schedule', `schedule: expected one of ${REPLAY_SCHEDULES.join(', ')}`);
  }
  const gate = {
    teacherPerformance: readNumber(settings, 'teacherPerformance', true) as number,
    windowSize: readNumber(settings, 'windowSize', false),
    alignmentThreshold: readNumber(settings, 'alignmentThreshold', false),
    competenceThreshold: readNumber(settings, 'competenceThreshold', false),
    denominatorEpsilon: readNumber(settings, 'denominatorEpsilon', false),
  };
  const defined = Object.fromEntries(Object.entries(gate).filter(([, v]) => v !== undefined)) as typeof gate;
  return {
    gate: defined,
    schedule: settings.schedule,
    ...(settings.format === 'auto' ? {} : { format: settings.format }),
    ...(settings.gapKey.trim() === '' ? {} : { gapKey: settings.gapKey.trim() }),
    ...(settings.valKey.trim() === '' ? {} : { valKey: settings.valKey.trim() }),
  };
}

/** The core's messages name CLI flags (`--gap-key`); the page names its own fields. */
function pageWording(message: string): string {
  return message.replace(/--gap-key/g, 'the gap key field').replace(/--val-key/g, 'the validation key field');
}

/** Any thrown value → a failure the view can show; never a stack trace. */
function describeFailure(error: unknown): ReplayFailure {
  if (error instanceof ReplayInputError) {
    return {
      kind: 'input',
      file: error.file,
      line: error.line,
      message: pageWording(error.line > 0 ? error.message : `${error.file}: ${error.detail}`),
    };
  }
  if (error instanceof SettingError) return { kind: 'setting', setting: error.setting, message: error.message };
  if (error instanceof GateConfigError) {
    const setting = GATE_SETTINGS.find((name) => name === error.field);
    if (setting !== undefined) {
      return { kind: 'setting', setting, message: `${SETTING_LABELS[setting]} ${error.requirement}` };
    }
    return { kind: 'internal', message: error.message.replace(/^gate config: /, '') };
  }
  return { kind: 'internal', message: `replay failed: ${error instanceof Error ? error.message : String(error)}` };
}

/** Run the core replay over the files with the form's settings. */
export function runReplay(sources: readonly LogSource[], settings: ReplaySettings): ReplayOutcome {
  try {
    if (sources.length === 0)
      return { ok: false, failure: { kind: 'internal', message: 'choose or drop a log file first' } };
    const options = settingsToOptions(settings);
    return { ok: true, result: replayGate(sources, options) };
  } catch (error) {
    return { ok: false, failure: describeFailure(error) };
  }
}

/** The same over streamed files (the replay worker's File.stream()): the core's streaming replay, the CLI's. */
export async function runReplayStream(sources: readonly LogStream[], settings: ReplaySettings): Promise<ReplayOutcome> {
  try {
    if (sources.length === 0)
      return { ok: false, failure: { kind: 'internal', message: 'choose or drop a log file first' } };
    const options = settingsToOptions(settings);
    return { ok: true, result: await replayGateStream(sources, options) };
  } catch (error) {
    return { ok: false, failure: describeFailure(error) };
  }
}

/** The gate's series of a replay, downsampled for drawing: K̄ₘ by its window's end step, the rest by validation step. */
export interface ReplaySeries {
  /** K̄_m of each evaluated window, at the step whose gap closed the window (not at the validation that read it: with
   *  W below the validation cadence that validation comes long after) */
  windowMean: SeriesPoint[];
  /** ρ — alignment progress (finite values only: the first window and |prev| ≤ ε have none) */
  alignment: SeriesPoint[];
  /** η — competence ratio */
  competence: SeriesPoint[];
  /** student validation score S at each evaluation */
  score: SeriesPoint[];
}

export function replaySeries(result: ReplayResult, maxPoints?: number): ReplaySeries {
  const e = result.evaluations;
  const series = (pick: (row: (typeof e)[number]) => number | null, x = (row: (typeof e)[number]) => row.step) =>
    downsampleSeries(finitePoints(e.map((row) => ({ x: x(row), y: pick(row) }))), maxPoints);
  return {
    windowMean: series(
      (r) => r.k_window_mean,
      (r) => r.window_end_step,
    ),
    alignment: series((r) => r.alignment_progress),
    competence: series((r) => r.competence_ratio),
    score: series((r) => r.student_performance),
  };
}

/** The gate thresholds as numbers for the charts' reference lines (defaults when a field is empty). */
export function thresholds(settings: ReplaySettings): { delta: number; gamma: number } {
  const num = (text: string, fallback: number) => {
    const v = text.trim() === '' ? fallback : Number(text);
    return Number.isFinite(v) ? v : fallback;
  };
  return {
    delta: num(settings.alignmentThreshold, GATE_DEFAULTS.alignmentThreshold),
    gamma: num(settings.competenceThreshold, GATE_DEFAULTS.competenceThreshold),
  };
}
