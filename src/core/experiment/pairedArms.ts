// Arms of one sweep paired on the seed against a baseline arm (docs/protocol.md's rule: the seed is the unit of
// replication): per arm the test success mean ± 95 % t-interval over seeds, and per arm the paired difference
// arm − baseline, its t-interval and a plain verdict — an interval that holds zero reads "no measurable difference".
// Used by cli/pairedReport.ts for pages such as docs/outcomes/distill-forms-shell-reporting.md. Pure TS.
import { pairedDifference, seedInterval, type SeedInterval } from './seedStatistics';

/** One finished run: its arm (the swept key's value), seed and outcomes (success rates in [0, 1]). */
export interface ArmRun {
  arm: string;
  seed: number;
  /** test success at T = 1 */
  test: number;
  /** test success at other temperatures (summary.temperatureControl), by temperature */
  testAt: ReadonlyMap<number, number>;
  /** the gate's trigger step, null when the teacher never retired */
  triggerStep: number | null;
}

export interface PairedArmsPageOptions {
  title: string;
  /** the arm every other arm is paired against */
  baseline: string;
  /** arms in the order of the tables (arms not listed follow, sorted) */
  arms: readonly string[];
  /** the seeds the sweep was meant to cover (missing runs are listed) */
  seeds: readonly number[];
  /** lines printed under the title (what ran, how the knobs were set); Markdown */
  intro: readonly string[];
  command: string;
  commit: string;
  date: string;
}

export type Verdict = 'no measurable difference' | 'measurably higher' | 'measurably lower' | 'fewer than two seeds';

/** The verdict of a paired interval: it holds zero → no measurable difference. */
export function verdictOf(d: SeedInterval): Verdict {
  if (d.n < 2 || !Number.isFinite(d.halfWidth)) return 'fewer than two seeds';
  if (d.lower <= 0 && d.upper >= 0) return 'no measurable difference';
  return d.mean > 0 ? 'measurably higher' : 'measurably lower';
}

const pct = (x: number): string => (Number.isFinite(x) ? (100 * x).toFixed(1) : '–');
const pm = (d: SeedInterval): string =>
  Number.isFinite(d.halfWidth) ? `${pct(d.mean)} ± ${pct(d.halfWidth)}` : `${pct(d.mean)} (n = ${d.n})`;

function byArm(runs: readonly ArmRun[], arm: string, pick: (r: ArmRun) => number | undefined): Map<number, number> {
  const m = new Map<number, number>();
  for (const r of runs) {
    const v = pick(r);
    if (r.arm === arm && v !== undefined && Number.isFinite(v)) m.set(r.seed, v);
  }
  return m;
}

/** The page: coverage, per-arm outcomes, paired differences with verdicts, per-seed values. */
export function pairedArmsPage(runs: readonly ArmRun[], o: PairedArmsPageOptions): string {
  const present = [...new Set(runs.map((r) => r.arm))];
  const arms = [...o.arms, ...present.filter((a) => !o.arms.includes(a)).sort()];
  // T = 1 is the primary test (`test`); other temperatures get their own columns and paired tables
  const temps = [...new Set(runs.flatMap((r) => [...r.testAt.keys()]))].filter((t) => t !== 1).sort((a, b) => a - b);
  const out: string[] = [`# ${o.title}`, '', ...o.intro, ''];
  out.push(
    'Command:',
    '',
    '```sh',
    o.command,
    '```',
    '',
    `Commit: ${o.commit}; seeds ${o.seeds.join(', ')}; ${o.date}.`,
    '',
  );
  const missing = arms.flatMap((a) => {
    const have = new Set(runs.filter((r) => r.arm === a).map((r) => r.seed));
    const lack = o.seeds.filter((s) => !have.has(s));
    return lack.length ? [`- \`${a}\`: no finished run on seed ${lack.join(', ')}`] : [];
  });
  if (missing.length) out.push('**Incomplete.** The tables cover only the finished runs:', '', ...missing, '');

  const metrics: { name: string; pick: (r: ArmRun) => number | undefined }[] = [
    { name: 'test success % (T = 1)', pick: (r) => r.test },
    ...temps.map((t) => ({ name: `test success % (T = ${t})`, pick: (r: ArmRun) => r.testAt.get(t) })),
  ];
  out.push(
    '## Each arm',
    '',
    `| arm | seeds | ${metrics.map((m) => `${m.name}, mean ± 95 % CI`).join(' | ')} | retired | trigger steps |`,
  );
  out.push(`|---|---|${metrics.map(() => '---|').join('')}---|---|`);
  for (const a of arms) {
    const rs = runs.filter((r) => r.arm === a).sort((x, y) => x.seed - y.seed);
    if (rs.length === 0) continue;
    const cells = metrics.map((m) => pm(seedInterval([...byArm(runs, a, m.pick).values()])));
    const retired = rs.filter((r) => r.triggerStep !== null).length;
    const triggers = rs.map((r) => (r.triggerStep === null ? '–' : String(r.triggerStep))).join(', ');
    out.push(`| ${a} | ${rs.length} | ${cells.join(' | ')} | ${retired} of ${rs.length} | ${triggers} |`);
  }
  out.push('');
  for (const m of metrics) {
    out.push(`## Paired on the seed: arm − ${o.baseline}, ${m.name}`, '');
    out.push(
      '| arm | seeds paired | difference (points), mean ± 95 % CI | seeds where higher | reading |',
      '|---|---|---|---|---|',
    );
    const base = byArm(runs, o.baseline, m.pick);
    const readings = new Map<Verdict, string[]>();
    for (const a of arms) {
      if (a === o.baseline) continue;
      const d = pairedDifference(byArm(runs, a, m.pick), base);
      if (d.n === 0) continue;
      const v = verdictOf(d);
      readings.set(v, [...(readings.get(v) ?? []), a]);
      out.push(`| ${a} | ${d.n} | ${pm(d)} | ${d.positive} of ${d.n} | ${v} |`);
    }
    out.push('');
    // the table in words: which differences are nulls (an interval that holds zero)
    const said = [...readings].map(([v, as]) => `${v}: ${as.map((a) => `\`${a}\``).join(', ')}`);
    if (said.length) out.push(`In words (${m.name}): ${said.join('; ')}.`, '');
  }
  out.push(
    '## Per seed (test success % at T = 1)',
    '',
    `| arm | ${o.seeds.join(' | ')} |`,
    `|---|${o.seeds.map(() => '---|').join('')}`,
  );
  for (const a of arms) {
    const m = byArm(runs, a, (r) => r.test);
    if (m.size === 0) continue;
    out.push(`| ${a} | ${o.seeds.map((s) => (m.has(s) ? pct(m.get(s) as number) : '–')).join(' | ')} |`);
  }
  out.push('');
  return out.join('\n');
}
