// What a sweep leaves behind: comparison.md / comparison.json and validation-<env>.svg over its finished runs (the
// table from core's comparison.ts, the figure from sweepPlot.ts), and `--report`, which builds one outcome over
// sweep folders already run — finished runs of unfinished sweeps included.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError, withFsErrors } from '../src/core/errors';
import {
  comparisonDocument,
  compareRuns,
  formatComparisonTable,
  sweepAbout,
  validationCurve,
  withYardsticks,
  type CurvePoint,
} from '../src/core/experiment/comparison';
import type { RunSummary } from '../src/core/experiment/summary';
import { validationPlotSvg, type PlotSeries } from '../src/core/experiment/sweepPlot';

/** A run label as a folder name (`seed=0 student.schedule=never` → `seed-0_student.schedule-never`). */
export function slug(label: string): string {
  return label.replace(/[^A-Za-z0-9.=-]+/g, '_').replace(/=/g, '-');
}

/** A finished run of a sweep, as the outcome needs it. */
export interface DoneRun {
  point: Record<string, unknown>;
  summary: RunSummary;
  label: string;
  curve: CurvePoint[];
  /** JSON of the run's config.env: runs with equal keys share a universe (and S_T yardstick) */
  envKey: string;
}

/** comparison.md's text about the presets (core's sweepAbout, which the app's Markdown export shares). */
export const about = sweepAbout;

/** comparison.md, comparison.json and validation-<env>.svg of finished runs into `out`; returns the table */
export function writeOutcome(
  out: string,
  title: string,
  aboutText: string,
  done: readonly DoneRun[],
  meta: Record<string, unknown>,
): string {
  const measured = withYardsticks(done);
  const yardsticks = new Map(done.map((d, i) => [d, measured[i]!.yardstick]));
  const sT = (d: DoneRun): number | null => yardsticks.get(d) ?? null;
  const rows = compareRuns(measured);
  const table = formatComparisonTable(rows);
  const write = (file: string, text: string): void =>
    withFsErrors(join(out, file), 'writing the sweep outcome', () => writeFileSync(join(out, file), text));
  write('comparison.md', comparisonDocument(title, aboutText, table));
  write(
    'comparison.json',
    JSON.stringify(
      {
        preset: title,
        ...meta,
        rows,
        runs: done.map((d) => ({ label: d.label, summary: d.summary, curve: d.curve, yardstick: sT(d) })),
      },
      null,
      1,
    ),
  );
  // one figure per environment: each sweep point of that environment is one series
  for (const env of [...new Set(done.map((d) => d.summary.env))]) {
    const series = new Map<string, PlotSeries['runs'][number][]>();
    for (const d of done.filter((x) => x.summary.env === env)) {
      const key = Object.entries(d.point)
        .map(([k, v]) => (k === 'preset' ? String(v) : `${k}=${String(v)}`))
        .join(' ');
      series.set(key || title, [
        ...(series.get(key || title) ?? []),
        { curve: d.curve, triggerStep: d.summary.gate.triggerStep, teacherPerformance: sT(d) },
      ]);
    }
    const svg = validationPlotSvg(
      `${env}: validation success vs student step (mean ± 95% band; ▲ retirement)`,
      [...series.entries()].map(([label, r]) => ({ label, runs: r })),
    );
    write(`validation-${env}.svg`, svg);
  }
  return table;
}

/**
 * `--report DIR,DIR…`: one outcome (table and figures) over sweeps already run, e.g. the story presets run as
 * separate sweep processes side by side; each DIR's comparison.json brings its runs, points and curves.
 */
export function report(dirs: readonly string[], out: string): string {
  const done: DoneRun[] = [];
  const titles: string[] = [];
  for (const dir of dirs) {
    const path = join(dir, 'comparison.json');
    if (!existsSync(path)) {
      // an unfinished sweep: its finished runs (run folders with summary.json), each point = its preset
      const runs = existsSync(dir) ? readdirSync(dir).filter((f) => existsSync(join(dir, f, 'summary.json'))) : [];
      if (runs.length === 0)
        throw new UserError(`--report: ${dir} has neither comparison.json nor finished run folders (summary.json)`);
      for (const f of runs) {
        const summary = readJson(join(dir, f, 'summary.json')) as RunSummary;
        const cfg = readJson(join(dir, f, 'config.json')) as { env?: unknown };
        if (summary.status !== 'completed') continue;
        titles.push(summary.name);
        done.push({
          point: { preset: summary.name },
          summary,
          label: `preset=${summary.name} seed=${summary.seed}`,
          curve: readCurve(join(dir, f, 'metrics.jsonl')),
          envKey: JSON.stringify(cfg.env),
        });
      }
      continue;
    }
    const c = readJson(path) as {
      preset: string;
      runs: { label: string; summary: RunSummary; curve?: CurvePoint[] }[];
      axes: Record<string, unknown[]>;
    };
    titles.push(c.preset);
    const axisKeys = Object.keys(c.axes);
    for (const r of c.runs) {
      if (r.summary.status !== 'completed') continue;
      // the point: the run's axis values (from its label), or its preset when the sweep had no axes
      const point: Record<string, unknown> = {};
      for (const part of r.label.split(' ')) {
        const eq = part.indexOf('=');
        const k = part.slice(0, eq);
        if (eq > 0 && k !== 'seed' && (axisKeys.includes(k) || k === 'preset')) point[k] = part.slice(eq + 1);
      }
      if (Object.keys(point).length === 0) point.preset = c.preset;
      const configPath = join(dir, slug(r.label), 'config.json');
      const env = existsSync(configPath) ? (readJson(configPath) as { env?: unknown }).env : r.summary.env;
      done.push({ point, summary: r.summary, label: r.label, curve: r.curve ?? [], envKey: JSON.stringify(env) });
    }
  }
  withFsErrors(out, 'creating the report folder', () => mkdirSync(out, { recursive: true }));
  return writeOutcome(out, combinedTitle(titles), `Combined from ${dirs.join(', ')}.`, inSeedOrder(done), {
    from: dirs,
  });
}

/** The runs of several sweeps in seed order (sort is stable): each row's per-seed columns then read seed 0, 1, … */
export function inSeedOrder(done: readonly DoneRun[]): DoneRun[] {
  return [...done].sort((a, b) => a.summary.seed - b.summary.seed);
}

/** The presets of several sweeps named once each (`retire-shop+opd-shop`, `opd-shop` → `retire-shop+opd-shop`). */
export function combinedTitle(titles: readonly string[]): string {
  return [...new Set(titles.flatMap((t) => t.split('+')))].join('+');
}

/** A JSON file of a sweep folder (--report); unreadable or malformed → a user error naming the file. */
function readJson(path: string): unknown {
  const text = withFsErrors(path, 'reading a sweep folder', () => readFileSync(path, 'utf8'));
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UserError(`--report: ${path} is not valid JSON (${(e as Error).message.slice(0, 80)})`);
  }
}

/** the student stage's validation curve from a run folder's metrics.jsonl (steps that logged val/success_rate) */
export function readCurve(path: string): CurvePoint[] {
  if (!existsSync(path)) return [];
  const text = withFsErrors(path, 'reading a run folder', () => readFileSync(path, 'utf8'));
  return validationCurve(
    text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  );
}
