// The held-out protocol's outcome page: from the finished runs of a protocol folder (cli/protocol.ts reads them), the
// story table, the paired RetireOPD − other-arm differences, the ablations, whether the gate's alignment condition
// ever decided ("gap still shrinking while η ≥ γ", alignmentHold.ts) and the per-fact table of the misleading skill
// entries (factOutcome.ts). Every interval is by seed (seedStatistics.ts): a run's test success rate is one number
// (its episodes averaged first), intervals are Student-t over seeds, differences are paired on the seed. Pure.
import type { AlignmentDecision } from '../alignmentHold';
import { markdownText } from './exportText';
import { RELEARNED_SUCCESS, type FactOutcome } from './factOutcome';
import { ABLATION_ARMS, ARM_TITLES, LAMBDA_VALUES, STORY_ARMS } from './protocolPlan';
import { pairedDifference, seedInterval, type PairedDifference, type SeedInterval } from './seedStatistics';
import type { RunSummary } from './summary';

/** One finished run of the protocol folder. */
export interface ProtocolRun {
  /** the arm (the sweep folder's name: retire, opd, …, `fixed` for every fixed-<seed>, `lambda`) */
  arm: string;
  seed: number;
  summary: RunSummary;
  /** student.lambdaOpd of the run's config (the λ ablation's point) */
  lambdaOpd: number;
  /** RetireOPD arm only: its log replayed adaptive vs competence-only (null when the log could not be replayed) */
  alignment?: AlignmentDecision | null;
}

export interface ProtocolMeta {
  env: string;
  seedSet: 'tuning' | 'reporting';
  /** the seeds the set declares (seedProtocol.ts) */
  seeds: readonly number[];
  commit: string;
  command: string;
  date: string;
}

const pct = (x: number): string => (Number.isFinite(x) ? (100 * x).toFixed(1) : '–');
const signedPct = (x: number): string =>
  Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}` : '–';
const interval = (i: SeedInterval): string =>
  i.n === 0 ? '–' : Number.isFinite(i.halfWidth) ? `${pct(i.mean)} ± ${pct(i.halfWidth)}` : `${pct(i.mean)} (one seed)`;
const signedInterval = (d: PairedDifference): string =>
  d.n === 0 ? '–' : Number.isFinite(d.halfWidth) ? `${signedPct(d.mean)} ± ${pct(d.halfWidth)}` : signedPct(d.mean);

/** A run's test success: at T = 1 (`summary.test`), or at another evaluated temperature (`temperatureControl`). */
type SuccessOf = (s: RunSummary) => number | undefined;
const atTemperatureOne: SuccessOf = (s) => s.test.successRate;
const atTemperature =
  (temperature: number): SuccessOf =>
  (s) =>
    (s.temperatureControl ?? []).find((t) => t.temperature === temperature)?.successRate;

/** seed → test success of an arm's completed runs (a seed run twice keeps the later folder's run). */
function successBySeed(runs: readonly ProtocolRun[], successOf: SuccessOf = atTemperatureOne): Map<number, number> {
  const m = new Map<number, number>();
  for (const r of [...runs].sort((a, b) => a.seed - b.seed)) {
    const v = successOf(r.summary);
    if (v !== undefined && Number.isFinite(v)) m.set(r.seed, v);
  }
  return m;
}

function armTitle(arm: string): string {
  return (ARM_TITLES as Record<string, string>)[arm] ?? arm;
}

/** A row of an arm table: the arm, its per-seed interval, its paired difference against RetireOPD. */
export interface ArmRow {
  arm: string;
  title: string;
  success: SeedInterval;
  perSeed: { seed: number; value: number }[];
  /** RetireOPD − this arm, paired by seed (null for RetireOPD itself) */
  vsRetire: PairedDifference | null;
}

function armRow(
  arm: string,
  title: string,
  runs: readonly ProtocolRun[],
  retire: Map<number, number>,
  successOf: SuccessOf = atTemperatureOne,
): ArmRow {
  const bySeed = successBySeed(runs, successOf);
  const perSeed = [...bySeed.entries()].map(([seed, value]) => ({ seed, value }));
  return {
    arm,
    title,
    success: seedInterval(perSeed.map((p) => p.value)),
    perSeed,
    vsRetire: arm === 'retire' ? null : pairedDifference(retire, bySeed),
  };
}

/** Per fact, per arm: seeds whose final student solves the fact's tasks ≥ RELEARNED_SUCCESS, and mean success. */
export interface FactRow {
  skill: string;
  tasks: number;
  arms: Record<string, { relearned: number; seeds: number; meanSuccess: number }>;
}

export interface ProtocolTables {
  story: ArmRow[];
  /** the story again at each other temperature every story run evaluated (evaluation.temperatures), e.g. the
   *  validation temperature 0.4 of the public scripts, at which S_T is measured */
  storyAt: { temperature: number; rows: ArmRow[] }[];
  ablations: ArmRow[];
  /** fixed:N's N per seed (the seed's RetireOPD trigger) */
  fixedSteps: { seed: number; step: number | null }[];
  /** RetireOPD seeds that never retired: no fixed:N run matches them */
  unmatchedFixed: number[];
  alignment: { seed: number; decision: AlignmentDecision | null }[];
  /** RetireOPD runs whose adaptive trigger differs from the competence-only replay's, of those replayed */
  alignmentDecided: { k: number; n: number };
  /** RetireOPD seeds whose replayed adaptive trigger is not the run's own (summary.json): the replay is suspect there */
  replayMismatch: number[];
  facts: FactRow[] | null;
  /** arms (story: retire, opd) whose summaries lack misleadingFacts: the per-fact table cannot be built from them */
  factsMissing: string[];
  /** which planned arms and seeds have no completed run (null when no plan was given) */
  coverage: ProtocolCoverage | null;
}

/** The protocol's plan as the report checks it: the arms planned for the environment and the seed set's seeds. */
export interface ProtocolPlanScope {
  /** arm ids: story arms, ablation arms (`lambda` for every λ value) and `fixed` */
  arms: readonly string[];
  seeds: readonly number[];
}

/** What the protocol folder lacks: planned arms with no completed run, and arms that lack some seeds. */
export interface ProtocolCoverage {
  notRun: string[];
  partial: { arm: string; missingSeeds: number[] }[];
}

/**
 * The planned arms and seeds without a completed run (`of`: an arm's completed runs). A seed of the λ ablation counts
 * once every λ value has run on it; fixed:N expects only the seeds whose RetireOPD run retired (and is not run while
 * the RetireOPD arm has no runs).
 */
function protocolCoverage(of: (arm: string) => ProtocolRun[], plan: ProtocolPlanScope): ProtocolCoverage {
  const seedsOf = (arm: string): Set<number> =>
    arm === 'lambda'
      ? new Set(
          plan.seeds.filter((s) => LAMBDA_VALUES.every((l) => of(arm).some((r) => r.seed === s && r.lambdaOpd === l))),
        )
      : new Set(of(arm).map((r) => r.seed));
  const retireRuns = of('retire');
  const retired = new Set(retireRuns.filter((r) => r.summary.gate.triggerStep !== null).map((r) => r.seed));
  const notRun: string[] = [];
  const partial: { arm: string; missingSeeds: number[] }[] = [];
  for (const arm of plan.arms) {
    const expected = arm === 'fixed' ? plan.seeds.filter((s) => retired.has(s)) : plan.seeds;
    // fixed:N where no RetireOPD run retired: nothing to run
    if (arm === 'fixed' && expected.length === 0 && retireRuns.length > 0) continue;
    const have = seedsOf(arm);
    const missingSeeds = expected.filter((s) => !have.has(s));
    if (have.size === 0) notRun.push(arm);
    else if (missingSeeds.length > 0) partial.push({ arm, missingSeeds });
  }
  return { notRun, partial };
}

/** Seeds as short ranges: 1000–1004, 1007. */
function seedRanges(seeds: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < seeds.length;) {
    let j = i;
    while (j + 1 < seeds.length && (seeds[j + 1] as number) === (seeds[j] as number) + 1) j++;
    parts.push(j > i ? `${seeds[i]}–${seeds[j]}` : String(seeds[i]));
    i = j + 1;
  }
  return parts.join(', ');
}

/** The tables of a protocol folder's runs. */
export function protocolTables(runs: readonly ProtocolRun[], plan?: ProtocolPlanScope): ProtocolTables {
  const of = (arm: string): ProtocolRun[] => runs.filter((r) => r.arm === arm && r.summary.status === 'completed');
  const retireRuns = of('retire');
  const retire = successBySeed(retireRuns);
  const storyArms = STORY_ARMS.filter((a) => of(a).length > 0);
  const story = storyArms.map((a) => armRow(a, armTitle(a), of(a), retire));
  const storyRuns = storyArms.flatMap(of);
  const temperatures = [
    ...new Set(storyRuns.flatMap((r) => (r.summary.temperatureControl ?? []).map((t) => t.temperature))),
  ]
    .filter(
      (T) => T !== 1 && storyRuns.every((r) => (r.summary.temperatureControl ?? []).some((t) => t.temperature === T)),
    )
    .sort((a, b) => a - b);
  const storyAt = temperatures.map((temperature) => {
    const successOf = atTemperature(temperature);
    const retireAt = successBySeed(retireRuns, successOf);
    return { temperature, rows: storyArms.map((a) => armRow(a, armTitle(a), of(a), retireAt, successOf)) };
  });
  const ablations: ArmRow[] = [];
  if (of('fixed').length > 0) ablations.push(armRow('fixed', armTitle('fixed'), of('fixed'), retire));
  for (const a of ABLATION_ARMS) {
    if (a === 'lambda') continue;
    if (of(a).length > 0) ablations.push(armRow(a, armTitle(a), of(a), retire));
  }
  const lambdas = [...new Set(of('lambda').map((r) => r.lambdaOpd))].sort((a, b) => a - b);
  for (const l of lambdas)
    ablations.push(
      armRow(
        `lambda=${l}`,
        `RetireOPD, λ_opd = ${l}`,
        of('lambda').filter((r) => r.lambdaOpd === l),
        retire,
      ),
    );
  const sortedRetire = [...retireRuns].sort((a, b) => a.seed - b.seed);
  const fixedSteps = sortedRetire.map((r) => ({ seed: r.seed, step: r.summary.gate.triggerStep }));
  const alignment = sortedRetire.map((r) => ({ seed: r.seed, decision: r.alignment ?? null }));
  const replayed = alignment.filter((a) => a.decision !== null);
  const factArms = ['retire', 'opd'].filter((a) => of(a).length > 0);
  const factsMissing = factArms.filter((a) => of(a).some((r) => r.summary.misleadingFacts === undefined));
  return {
    story,
    storyAt,
    ablations,
    fixedSteps,
    unmatchedFixed: fixedSteps.filter((f) => f.step === null).map((f) => f.seed),
    alignment,
    alignmentDecided: { k: replayed.filter((a) => a.decision?.triggerDiffers).length, n: replayed.length },
    replayMismatch: sortedRetire
      .filter((r) => r.alignment && r.alignment.adaptiveTrigger !== r.summary.gate.triggerStep)
      .map((r) => r.seed),
    facts: factsMissing.length === 0 && factArms.length > 0 ? factRows(factArms, of) : null,
    factsMissing,
    coverage: plan ? protocolCoverage(of, plan) : null,
  };
}

function factRows(arms: readonly string[], of: (arm: string) => ProtocolRun[]): FactRow[] {
  const rows = new Map<string, FactRow>();
  for (const arm of arms) {
    for (const r of of(arm)) {
      for (const f of r.summary.misleadingFacts as FactOutcome[]) {
        const row = rows.get(f.skill) ?? { skill: f.skill, tasks: f.tasks, arms: {} };
        const cell = row.arms[arm] ?? { relearned: 0, seeds: 0, meanSuccess: 0 };
        // running mean over the seeds that evaluated this fact
        cell.meanSuccess = (cell.meanSuccess * cell.seeds + f.successRate) / (cell.seeds + 1);
        cell.seeds += 1;
        if (f.successRate >= RELEARNED_SUCCESS) cell.relearned += 1;
        row.arms[arm] = cell;
        rows.set(f.skill, row);
      }
    }
  }
  return [...rows.values()].sort((a, b) => (a.skill < b.skill ? -1 : a.skill > b.skill ? 1 : 0));
}

function armTable(rows: readonly ArmRow[], extra?: (r: ArmRow) => string): string[] {
  const head = `| arm | seeds | test success % (mean ± 95% t-interval by seed) | RetireOPD − arm, points (paired by seed, ± 95%) | seeds where RetireOPD is higher |${extra ? ' N per seed |' : ''}`;
  const lines = [head, `|---|---|---|---|---|${extra ? '---|' : ''}`];
  for (const r of rows) {
    const d = r.vsRetire;
    lines.push(
      `| ${r.title} | ${r.success.n} | ${interval(r.success)} | ${d ? signedInterval(d) : '—'} | ${d ? `${d.positive} of ${d.n}` : '—'} |${extra ? ` ${extra(r)} |` : ''}`,
    );
  }
  return lines;
}

/** The page's coverage paragraph: empty when every planned arm has every seed (or no plan was given). */
function coverageLines(c: ProtocolCoverage | null): string[] {
  if (c === null || (c.notRun.length === 0 && c.partial.length === 0)) return [];
  const lines = ['**Incomplete: the tables below cover only the runs this folder holds.**', ''];
  if (c.notRun.length > 0) lines.push(`- Not run: ${c.notRun.map(armTitle).join('; ')}.`);
  for (const p of c.partial) lines.push(`- ${armTitle(p.arm)}: no run for seed(s) ${seedRanges(p.missingSeeds)}.`);
  lines.push('');
  return lines;
}

/** The outcome page (Markdown). */
export function protocolPage(t: ProtocolTables, meta: ProtocolMeta): string {
  const seedText = `${meta.seeds[0]}–${meta.seeds.at(-1)}`;
  const out: string[] = [
    `# Protocol: ${markdownText(meta.env)}, ${meta.seedSet} seeds ${seedText}`,
    '',
    meta.seedSet === 'reporting'
      ? `Held-out result: seeds ${seedText} were never looked at while tuning (tuning used seeds 0–4; docs/protocol.md).`
      : `**Tuning seeds** ${seedText}: these are the seeds the presets and thresholds were chosen on — not a held-out result.`,
    '',
    `Commit ${meta.commit}, ${meta.date}. Command:`,
    '',
    `    ${meta.command}`,
    '',
    'Intervals are by seed: each run’s test success rate (its episodes averaged first) is one replication; ' +
      '± is the half-width of the 95 % Student-t interval over seeds (n − 1 degrees of freedom). Differences are ' +
      'paired on the seed (same SFT, teacher and tasks) before the interval is taken.',
    '',
    ...coverageLines(t.coverage),
    '## Story',
    '',
    ...armTable(t.story),
    '',
    'Per seed (test success %):',
    '',
    ...t.story.map((r) => `- ${r.title}: ${r.perSeed.map((p) => `${p.seed}: ${pct(p.value)}`).join(', ')}`),
    '',
  ];
  const opd = t.story.find((r) => r.arm === 'opd')?.vsRetire;
  if (opd && opd.n > 0)
    out.push(
      `RetireOPD − OPD throughout: ${signedInterval(opd)} points over ${opd.n} seeds; RetireOPD is higher on ${opd.positive} of ${opd.n} ` +
        `(per seed: ${opd.seeds.map((s, i) => `${s}: ${signedPct(opd.differences[i] as number)}`).join(', ')}).`,
      '',
    );
  for (const { temperature, rows } of t.storyAt) {
    out.push(
      `## Story at T = ${temperature}`,
      '',
      `The same runs' final students, tested on the same tasks sampling at T = ${temperature} (evaluation.temperatures), ` +
        'the temperature the gate validates at and S_T is measured at. The table above (T = 1) is the primary one.',
      '',
      ...armTable(rows),
      '',
    );
    const d = rows.find((r) => r.arm === 'opd')?.vsRetire;
    if (d && d.n > 0)
      out.push(
        `RetireOPD − OPD throughout at T = ${temperature}: ${signedInterval(d)} points; RetireOPD is higher on ${d.positive} of ${d.n} ` +
          `(per seed: ${d.seeds.map((s, i) => `${s}: ${signedPct(d.differences[i] as number)}`).join(', ')}).`,
        '',
      );
  }
  out.push('## Ablations', '');
  if (t.ablations.length === 0) out.push('No ablation runs in this folder.', '');
  else {
    const fixedN = t.fixedSteps.map((f) => `${f.seed}: ${f.step ?? '–'}`).join(', ');
    out.push(...armTable(t.ablations, (r) => (r.arm === 'fixed' ? fixedN : '—')), '');
    if (t.unmatchedFixed.length > 0)
      out.push(`fixed:N has no run for seed(s) ${t.unmatchedFixed.join(', ')}: RetireOPD never retired there.`, '');
  }
  out.push(
    '## Does the alignment condition decide? (gap still shrinking while η ≥ γ)',
    '',
    'Each RetireOPD run’s metrics.jsonl replayed under the adaptive gate and a competence-only gate (the run’s own ' +
      'window, thresholds and S_T). "kept by alignment" counts the evaluated windows, up to retirement, where η ≥ γ ' +
      'held but ρ > δ kept the teacher.',
    '',
    '| seed | adaptive trigger | competence-only trigger | windows evaluated | kept by alignment (steps) |',
    '|---|---|---|---|---|',
    ...t.alignment.map(({ seed, decision: d }) =>
      d === null
        ? `| ${seed} | – | – | – | log not replayable |`
        : `| ${seed} | ${d.adaptiveTrigger ?? 'never'} | ${d.competenceOnlyTrigger ?? 'never'} | ${d.windows} | ${d.keptByAlignment}${d.keptSteps.length ? ` (${d.keptSteps.join(', ')})` : ''} |`,
    ),
    '',
    `The alignment condition changed the trigger on ${t.alignmentDecided.k} of ${t.alignmentDecided.n} RetireOPD runs.`,
    '',
    ...(t.replayMismatch.length > 0
      ? [
          `Caution: on seed(s) ${t.replayMismatch.join(', ')} the replayed adaptive trigger is not the run’s own ` +
            '(summary.json gate.triggerStep): the log or the gate settings read from config.json do not reproduce the run.',
          '',
        ]
      : []),
    '## Misleading skill entries, per fact',
    '',
  );
  if (t.facts === null) {
    out.push(
      t.factsMissing.length > 0
        ? `Not available: summary.json of the ${t.factsMissing.join(' and ')} runs has no \`misleadingFacts\` (written by ` +
            'runs since the evaluation stage records test success per misleading skill entry). Rerun those arms, or ' +
            'split an old run’s test success by truthful/misleading entry with `npm run pinning -- RUN_DIR…`.'
        : 'No RetireOPD or OPD-throughout runs in this folder.',
      '',
    );
  } else if (t.facts.length === 0) out.push('No test task retrieved a misleading skill entry.', '');
  else {
    const arms = Object.keys(t.facts[0]!.arms).length ? ['retire', 'opd'] : [];
    out.push(
      `A fact is relearned on a seed when the final student solves its test tasks at least ${100 * RELEARNED_SUCCESS} % of the time ` +
        '(the teacher, reading the misleading entry, mostly fails them).',
      '',
      `| misleading entry | test tasks | ${arms.map((a) => `${armTitle(a)}: seeds relearned | mean success %`).join(' | ')} |`,
      `|---|---|${arms.map(() => '---|---|').join('')}`,
      ...t.facts.map(
        (f) =>
          `| ${markdownText(f.skill)} | ${f.tasks} | ${arms
            .map((a) => {
              const c = f.arms[a];
              return c ? `${c.relearned} of ${c.seeds} | ${pct(c.meanSuccess)}` : '– | –';
            })
            .join(' | ')} |`,
      ),
      '',
    );
  }
  return out.join('\n');
}
