// report.md of a run: the key numbers of a RunSummary in Markdown (pure; the CLI writes it, the UI can show it).
// Every text from the config or summary (name, error, an imported run's fields) goes in as literal text (md).
import type { ExperimentConfig } from './config';
import type { RunSummary } from './summary';
import { GATED_SCHEDULE_KINDS, isOneOf } from '../methodVocabulary';
import { markdownCode, markdownText as md } from './exportText';

const pct = (x: number | null | undefined): string =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : `${(100 * x).toFixed(1)}%`;
const num = (x: number | null | undefined, digits = 3): string =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);

export function formatRunReport(cfg: ExperimentConfig, s: RunSummary): string {
  const lines: string[] = [];
  lines.push(`# ${md(s.name)} — ${md(s.env)}, seed ${s.seed}`, '');
  lines.push(
    `Status: **${md(s.status)}**${s.error ? ` — ${md(s.error)}` : ''}. Backend ${md(s.backend)}, wall time ${s.wallSeconds.toFixed(1)} s.`,
    '',
  );
  lines.push(
    `Pipeline: ${cfg.demonstrations.tasks} demonstrations → SFT ${cfg.sft.steps} steps (λ_obs = ${cfg.sft.lambdaObs}${
      cfg.sft.lambdaObs === 0 ? ', ActionSFT' : cfg.sft.lambdaObs === 1 ? ', ActObs' : ''
    }) → teacher GRPO ${cfg.teacher.steps} steps → student ${cfg.student.steps} steps, schedule ${markdownCode(s.schedule)}, λ_opd ${
      cfg.student.lambdaOpd
    }, estimator ${md(s.estimator)}.`,
    '',
  );
  lines.push('| quantity | value |', '|---|---|');
  if (s.sft) {
    lines.push(
      `| observation CE, base → after SFT (nats/token) | ${num(s.sft.observationCeBase)} → ${num(s.sft.observationCe)} |`,
    );
    lines.push(`| action CE after SFT | ${num(s.sft.actionCe)} |`);
    lines.push(`| last cos(g_act, g_obs) | ${num(s.sft.gradientCosineLast)} |`);
  }
  lines.push(`| teacher S_T (validation ${cfg.student.validationMetric}) | ${num(s.teacherPerformance)} |`);
  lines.push(`| retired | ${s.gate.retired ? 'yes' : 'no'} |`);
  lines.push(`| trigger step | ${s.gate.triggerStep ?? '–'} |`);
  lines.push(`| teacher forwards run / skipped | ${s.gate.teacherForwardRun} / ${s.gate.teacherForwardSkipped} |`);
  lines.push(
    `| sampled tokens / env steps at retirement | ${s.gate.tokensAtRetirement ?? '–'} / ${s.gate.envStepsAtRetirement ?? '–'} |`,
  );
  if (s.validation)
    lines.push(`| student validation best / last | ${num(s.validation.best)} / ${num(s.validation.last)} |`);
  lines.push(`| **test success** | **${pct(s.test.successRate)}** |`);
  for (const [k, v] of Object.entries(s.test.passAtK))
    lines.push(`| pass@${k} (n = ${cfg.evaluation.passN}) | ${pct(v)} |`);
  lines.push(
    `| entropy action-head / argument (nats) | ${num(s.test.entropyByClass.actionHead)} / ${num(s.test.entropyByClass.actionArg)} |`,
  );
  lines.push(`| KL(π_init ‖ π) (nats / action token) | ${num(s.test.klFromInit, 4)} |`);
  lines.push(
    `| ms per student step before / after retirement | ${num(s.stepMs.beforeRetirement, 0)} / ${num(s.stepMs.afterRetirement, 0)} |`,
  );
  for (const t of s.temperatureControl) {
    lines.push(
      `| temperature ${t.temperature}: success / argument entropy | ${pct(t.successRate)} / ${num(t.argEntropy)} |`,
    );
  }
  if (s.probeEntropy) {
    lines.push(
      `| probe entropy at T = 1, action-head / argument (nats) | ${num(s.probeEntropy.actionHead)} / ${num(s.probeEntropy.actionArg)} |`,
    );
  }
  const mt = s.matchedTemperature;
  if (mt) {
    lines.push(
      `| matched temperature (target argument entropy ${num(mt.target)}): T / argument entropy / success | ${num(mt.temperature)} / ${num(mt.argEntropy)}${mt.converged ? '' : ' (not matched)'} / ${pct(mt.successRate)} |`,
    );
  }
  const g = cfg.student.gate;
  // the replay's default schedule is adaptive; the other gated schedules are named
  const rule =
    s.schedule !== 'adaptive' && isOneOf(GATED_SCHEDULE_KINDS, s.schedule) ? ` --schedule ${s.schedule}` : '';
  lines.push(
    '',
    `Replay this run's gate: \`npm run replay -- metrics.jsonl --teacher-performance ${s.teacherPerformance ?? 'S_T'} --window ${g.windowSize} ` +
      `--alignment-threshold ${g.alignmentThreshold} --competence-threshold ${g.competenceThreshold} --epsilon ${g.denominatorEpsilon}${rule}\`.`,
  );
  return lines.join('\n') + '\n';
}
