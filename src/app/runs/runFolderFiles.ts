// Stored runs in and out as the CLI's run folder (cli/runFolder.ts): config.json, metrics.jsonl (student steps),
// sft.jsonl, teacher.jsonl, events.jsonl, summary.json, report.md, checkpoints/<name>/{model.json,weights.bin,
// state.json} + checkpoints/LATEST — so a run from the tab resumes with `npm run experiment -- --resume DIR`, and a
// CLI run folder (or a sweep folder of them, with its comparison.json) imports into the tab's runs table.
import { resolveConfig } from '../../core/experiment/config';
import { formatRunReport } from '../../core/experiment/report';
import type { RunSummary } from '../../core/experiment/summary';
import { getConfigValue } from '../../core/experiment/config';
import type { RetireOpdMetricName } from '../../core/retirementGate';
import { METRIC } from '../../core/runLog/metricKeys';
import type { CheckpointFiles } from '../../engine/trainer/checkpoint';
import type { StageName, TrainerEvent } from '../../engine/trainer/events';
import { STAGE_NAMES } from '../../engine/trainer/events';
import {
  newRunId,
  TRAINED_STAGES,
  type RunRecord,
  type StoredEvent,
  type StoredMetrics,
  type TrainedStage,
} from './runRecord';

/** JSON with non-finite numbers as null (as the CLI writes its logs). */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v));
}

export const metricsFileFor = (stage: TrainedStage) => (stage === 'student' ? 'metrics.jsonl' : `${stage}.jsonl`);

const lines = (values: readonly unknown[]) => values.map((v) => jsonLine(v) + '\n').join('');

/** The folder's files (text or bytes) by path relative to the run folder. */
export function runFolderFiles(
  record: RunRecord,
  metrics: readonly StoredMetrics[],
  events: readonly StoredEvent[],
  checkpoints: ReadonlyMap<string, CheckpointFiles> = new Map(),
  latest: string | null = null,
): Map<string, string | Uint8Array> {
  const files = new Map<string, string | Uint8Array>();
  files.set('config.json', JSON.stringify(record.config, null, 2) + '\n');
  for (const stage of TRAINED_STAGES) {
    const rows = metrics.filter((m) => m.stage === stage).map((m) => m.line);
    if (rows.length > 0 || stage === 'student') files.set(metricsFileFor(stage), lines(rows));
  }
  files.set('events.jsonl', lines(events.map((e) => e.event)));
  if (record.summary) {
    files.set('summary.json', jsonLine(record.summary) + '\n');
    files.set('report.md', formatRunReport(record.config, record.summary));
  }
  for (const [name, ckpt] of checkpoints) for (const [f, bytes] of ckpt) files.set(`checkpoints/${name}/${f}`, bytes);
  if (latest) files.set('checkpoints/LATEST', latest);
  return files;
}

/** A folder-safe name for a run: "smoke-seed5-<id>". */
export function runFolderName(record: RunRecord): string {
  const base = record.label ?? `${record.config.name}-seed${record.seed}`;
  return `${base.replace(/[^A-Za-z0-9.=-]+/g, '_').replace(/=/g, '-')}-${record.id}`;
}

// ---------------------------------------------------------------- import

/** One dropped file: its path inside what was dropped ("sweep/student.schedule-never_seed-0/summary.json"). */
export interface DroppedFile {
  path: string;
  text: string;
}

export interface ImportedRun {
  record: RunRecord;
  metrics: StoredMetrics[];
  events: StoredEvent[];
}

class ImportError extends Error {
  override name = 'ImportError';
}

function parseJson(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ImportError(`${path}: not valid JSON (${(e as Error).message})`);
  }
}

/** Null (from JSON) back to NaN in a metrics line, as the trainer emits it. */
const metricsLine = (raw: unknown): StoredMetrics['line'] => {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) out[k] = typeof v === 'number' ? v : NaN;
  return out as StoredMetrics['line'];
};

function checkSummary(path: string, raw: unknown): RunSummary {
  const s = raw as Partial<RunSummary> | null;
  if (
    !s ||
    typeof s !== 'object' ||
    typeof s.test?.successRate !== 'number' ||
    !s.gate ||
    typeof s.wallSeconds !== 'number'
  )
    throw new ImportError(`${path}: not a RunSummary (expected test.successRate, gate, wallSeconds)`);
  return s as RunSummary;
}

const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const baseOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const slug = (label: string) => label.replace(/[^A-Za-z0-9.=-]+/g, '_').replace(/=/g, '-');

/** A run's JSON-lines log: a stage's metrics or the events. */
export type LogKind = TrainedStage | 'events';
const LOG_FILES: readonly [LogKind, string][] = [
  ...TRAINED_STAGES.map((stage) => [stage, metricsFileFor(stage)] as [LogKind, string]),
  ['events', 'events.jsonl'],
];

/** Whether a dropped path is one of a run folder's JSON-lines logs (streamed, not read whole). */
export const isRunLog = (path: string) => LOG_FILES.some(([, name]) => baseOf(path) === name);

/** A run about to be imported: its record (step and stage filled in by finishImportedRecord) and its logs. */
export interface PlannedImport {
  record: RunRecord;
  /** the folder's JSON-lines logs present, by kind: the path to read each from */
  logs: { kind: LogKind; path: string; where: string }[];
  /** where its summary.json is, for messages (null: the folder has none) */
  summaryWhere: string | null;
}

/**
 * The runs among dropped files, from the small JSON files (config.json, summary.json, comparison.json) and the paths
 * of the logs (read separately, line by line: a metrics.jsonl may be hundreds of MB). Every folder holding a
 * config.json is a run; a sweep folder's comparison.json gives its runs their points and order (as `npm run sweep`
 * wrote them).
 */
export function planRunImports(
  jsonFiles: readonly DroppedFile[],
  logPaths: readonly string[],
  now: number = Date.now(),
): PlannedImport[] {
  const byDir = new Map<string, Map<string, string>>();
  // two files of one name in one folder (two config.json chosen with "import files…"): which is the run's is unknown
  const twice = (dir: string, name: string) =>
    new ImportError(
      `${dir || '(dropped files)'}: two ${name} files — a run folder holds one; import each run's folder (or its files) on its own`,
    );
  for (const f of jsonFiles) {
    const dir = dirOf(f.path);
    const files = byDir.get(dir) ?? byDir.set(dir, new Map()).get(dir)!;
    if (files.has(baseOf(f.path))) throw twice(dir, baseOf(f.path));
    files.set(baseOf(f.path), f.text);
  }
  const logsByDir = new Map<string, string[]>();
  for (const p of logPaths) {
    const present = logsByDir.get(dirOf(p)) ?? logsByDir.set(dirOf(p), []).get(dirOf(p))!;
    if (present.some((q) => baseOf(q) === baseOf(p))) throw twice(dirOf(p), baseOf(p));
    present.push(p);
  }
  const sweeps = new Map<string, { axes: string[]; labels: string[]; bySlug: Map<string, number>; queueId: string }>();
  for (const [dir, fs] of byDir) {
    const text = fs.get('comparison.json');
    if (text === undefined) continue;
    const c = parseJson(`${dir}/comparison.json`, text) as {
      axes?: Record<string, unknown>;
      runs?: { label?: string }[];
    };
    const labels = (c.runs ?? []).map((r) => String(r.label ?? ''));
    // each run folder's name → its place in the sweep (the first label with that folder name), built once
    const bySlug = new Map<string, number>();
    labels.forEach((l, i) => {
      if (!bySlug.has(slug(l))) bySlug.set(slug(l), i);
    });
    sweeps.set(dir, {
      axes: Object.keys(c.axes ?? {}),
      labels,
      bySlug,
      queueId: `import-${dir || 'sweep'}-${now.toString(36)}`,
    });
  }
  const runs: PlannedImport[] = [];
  let n = 0;
  for (const [dir, fs] of byDir) {
    const configText = fs.get('config.json');
    if (configText === undefined) continue;
    const where = dir || '(dropped files)';
    const config = resolveConfig(parseJson(`${where}/config.json`, configText), undefined, `${where}/config.json`);
    const summaryText = fs.get('summary.json');
    const summary =
      summaryText === undefined
        ? null
        : checkSummary(`${where}/summary.json`, parseJson(`${where}/summary.json`, summaryText));
    if (summary) checkSummaryMatchesConfig(`${where}/summary.json`, summary, config);
    const id = newRunId(now + n++);
    const present = logsByDir.get(dir) ?? [];
    const logs = LOG_FILES.flatMap(([kind, name]) => {
      const path = present.find((p) => baseOf(p) === name);
      return path === undefined ? [] : [{ kind, path, where: `${where}/${name}` }];
    });
    const parent = dirOf(dir);
    const sweep = sweeps.get(parent) ?? null;
    const folder = baseOf(dir);
    const labelIndex = sweep ? (sweep.bySlug.get(folder) ?? -1) : -1;
    const point = sweep ? Object.fromEntries(sweep.axes.map((k) => [k, getConfigValue(config, k)])) : null;
    const record: RunRecord = {
      id,
      createdAt: now + n,
      updatedAt: now + n,
      origin: 'import',
      preset: config.name,
      overrides: [],
      seed: config.seed,
      backendChoice: 'auto',
      backend: (summary?.backend ?? config.runtime.backend) as RunRecord['backend'],
      config,
      status: 'imported',
      stage: null,
      step: 0,
      totalSteps: config.student.steps,
      point,
      queueId: sweep?.queueId ?? null,
      queueIndex: sweep ? (labelIndex >= 0 ? labelIndex : sweep.labels.length + n) : null,
      label: sweep && labelIndex >= 0 ? (sweep.labels[labelIndex] ?? null) : folder || null,
      triggerStep: summary?.gate.triggerStep ?? null,
      checkpoint: null,
      summary,
      error: summary?.error ?? null,
    };
    runs.push({ record, logs, summaryWhere: summary ? `${where}/summary.json` : null });
  }
  if (runs.length === 0)
    throw new ImportError('no run folder found: drop a folder holding config.json (and metrics.jsonl, summary.json)');
  return runs;
}

/** One line of a run's log (1-based `line`; blank lines give null), as the row the runs store keeps. */
export function importedRow(
  runId: string,
  kind: LogKind,
  where: string,
  text: string,
  line: number,
  seq: number,
): { metrics: StoredMetrics | null; event: StoredEvent | null } | null {
  const l = text.trim();
  if (l === '') return null;
  let raw: unknown;
  try {
    raw = JSON.parse(l);
  } catch (e) {
    throw new ImportError(`${where}:${line}: not valid JSON (${(e as Error).message})`);
  }
  if (kind === 'events') {
    const event = raw as TrainerEvent & { stage?: StageName; step?: number };
    const stage: StageName =
      typeof event.stage === 'string' && (STAGE_NAMES as readonly string[]).includes(event.stage)
        ? event.stage
        : 'student';
    return {
      metrics: null,
      event: { runId, seq, stage, step: typeof event.step === 'number' ? event.step : 0, event },
    };
  }
  const m = metricsLine(raw);
  return { metrics: Number.isFinite(m.step) ? { runId, stage: kind, step: m.step, line: m } : null, event: null };
}

/**
 * What a run's student log (metrics.jsonl) says, gathered row by row as it streams: its last step, its last
 * validation score, and the gate's trigger step as logged (`retire_opd/trigger_step`, −1 before retirement).
 */
export class StudentLogFacts {
  lastStep: number | null = null;
  lastValidation: number | null = null;
  /** undefined: the log has no trigger metric; null: logged, never ≥ 0; else the first step it names */
  trigger: number | null | undefined = undefined;
  see(m: StoredMetrics): void {
    if (m.stage !== 'student') return;
    this.lastStep = m.step;
    const val = m.line[METRIC.valSuccessRate];
    if (typeof val === 'number' && Number.isFinite(val)) this.lastValidation = val;
    const t = (m.line as Record<string, number | undefined>)[TRIGGER_METRIC];
    if (typeof t === 'number' && Number.isFinite(t)) this.trigger = this.trigger ?? (t >= 0 ? t : null);
  }
}

const TRIGGER_METRIC: RetireOpdMetricName = 'retire_opd/trigger_step';

function checkSummaryMatchesConfig(where: string, summary: RunSummary, config: RunRecord['config']): void {
  const wrong: string[] = [];
  if (summary.seed !== config.seed) wrong.push(`seed ${summary.seed}, config.json's ${config.seed}`);
  if (summary.env !== config.env.name) wrong.push(`env ${summary.env}, config.json's ${config.env.name}`);
  if (wrong.length) throw new ImportError(`${where} contradicts config.json: ${wrong.join('; ')} (not this run's)`);
}

/**
 * The record once its logs are read: the last student step and its stage. A summary.json that contradicts the
 * student log — another last validation score, another trigger step than the log's first — is refused, naming both.
 */
export function finishImportedRecord(planned: PlannedImport, facts: StudentLogFacts): RunRecord {
  const { record, summaryWhere } = planned;
  const s = record.summary;
  if (s && summaryWhere) {
    const wrong: string[] = [];
    if (s.validation && facts.lastValidation !== null && s.validation.last !== facts.lastValidation)
      wrong.push(`last validation score ${s.validation.last}, metrics.jsonl's ${facts.lastValidation}`);
    if (facts.trigger !== undefined && (s.gate.triggerStep ?? null) !== facts.trigger)
      wrong.push(
        `trigger step ${s.gate.triggerStep ?? 'none'}, metrics.jsonl's ${facts.trigger ?? 'none'} (retire_opd/trigger_step)`,
      );
    if (wrong.length)
      throw new ImportError(`${summaryWhere} contradicts its metrics.jsonl: ${wrong.join('; ')} (not this run's)`);
  }
  return facts.lastStep === null ? record : { ...record, stage: 'student', step: facts.lastStep };
}

/** Runs from dropped files held whole (small folders; the page streams large logs through planRunImports). */
export function importRunFolders(files: readonly DroppedFile[], now: number = Date.now()): ImportedRun[] {
  const logs = new Map(files.filter((f) => isRunLog(f.path)).map((f) => [f.path, f.text]));
  // every log's path, a repeated one included (planRunImports refuses two of one name in one folder)
  const planned = planRunImports(
    files.filter((f) => !isRunLog(f.path)),
    files.filter((f) => isRunLog(f.path)).map((f) => f.path),
    now,
  );
  return planned.map((plan) => {
    const { record, logs: runLogs } = plan;
    const metrics: StoredMetrics[] = [];
    const events: StoredEvent[] = [];
    const facts = new StudentLogFacts();
    for (const log of runLogs) {
      (logs.get(log.path) ?? '').split('\n').forEach((text, i) => {
        const row = importedRow(record.id, log.kind, log.where, text, i + 1, events.length);
        if (row?.metrics) {
          metrics.push(row.metrics);
          facts.see(row.metrics);
        }
        if (row?.event) events.push(row.event);
      });
    }
    return { record: finishImportedRecord(plan, facts), metrics, events };
  });
}
