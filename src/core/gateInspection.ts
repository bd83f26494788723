// The gate inspector's table: one row per evaluated window, with the decision the gate took and the reason in words
// ("gap still shrinking: ρ = 0.21 > δ = 0"). The numbers are the gate's own outputs — a live run's GateEvaluation
// events or a replay's evaluation lines, both produced by RetirementGate — never recomputed here: the previous
// window mean and previous score of a row are the previous row's values (the gate sets prev ← cur and S_prev ← S at
// every evaluation, valid or not), and the decision is the gate's `retired` flag. This module only reads them and
// says, in words, which condition of docs/METHODS.md §4 held or failed.
import type { GateConfig } from './gateConfig';
import type { GateRule } from './methodVocabulary';

/** An evaluation as the gate reports it (GateEvaluation uses NaN for "none", a replay line uses null). */
export interface EvaluatedWindow {
  readonly step: number;
  readonly window_index: number;
  readonly window_end_step: number;
  readonly k_window_mean: number | null;
  readonly student_performance: number;
  readonly alignment_progress: number | null;
  readonly competence_ratio: number | null;
  readonly criterion_valid: boolean;
  /** the gate's state after this evaluation */
  readonly retired: boolean;
  /** true only for the evaluation that retired the gate (replay lines lack it: derived from `retired`) */
  readonly triggered?: boolean;
}

/** The thresholds the words compare against: the gate config the evaluations were produced with. */
export type InspectionConfig = Pick<
  GateConfig,
  'alignmentThreshold' | 'competenceThreshold' | 'denominatorEpsilon' | 'teacherPerformance'
>;

/** Why ρ and η were not computed. */
export type InvalidReason = 'no-previous-window' | 'previous-near-zero' | 'not-finite';

export type Decision = 'retire' | 'keep' | 'already-retired';

export interface InspectionRow {
  readonly windowIndex: number;
  /** the validation step that evaluated the window */
  readonly step: number;
  readonly windowEndStep: number;
  /** K̄ₘ of this window and of the previously evaluated one */
  readonly kWindowMean: number | null;
  readonly previousKWindowMean: number | null;
  /** ρ = P (null when not computed) */
  readonly alignmentProgress: number | null;
  readonly studentPerformance: number;
  readonly previousPerformance: number | null;
  /** η = C (null when not computed) */
  readonly competenceRatio: number | null;
  readonly valid: boolean;
  readonly invalidReason: InvalidReason | null;
  /** ρ ≤ δ and η ≥ γ (null when the criterion is not valid) */
  readonly aligned: boolean | null;
  readonly competent: boolean | null;
  readonly decision: Decision;
  /** the decision in words, naming the numbers compared */
  readonly reason: string;
}

const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);
const orNull = (x: number | null | undefined): number | null => (finite(x) ? x : null);

/** Numbers as the inspector prints them: up to 3 significant decimals, exponent form when tiny or huge. */
export function formatGateNumber(x: number | null): string {
  if (x === null) return '—';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e4 || a < 1e-3) return x.toExponential(2);
  return String(Number(x.toPrecision(3)));
}

function invalidReason(previous: number | null, hasPrevious: boolean, epsilon: number): InvalidReason {
  if (!hasPrevious || previous === null) return 'no-previous-window';
  if (Math.abs(previous) <= epsilon) return 'previous-near-zero';
  return 'not-finite';
}

function invalidWords(reason: InvalidReason, previous: number | null, epsilon: number): string {
  switch (reason) {
    case 'no-previous-window':
      return 'not evaluable: no previous window yet (ρ and η compare two evaluated windows)';
    case 'previous-near-zero':
      return `not evaluable: |previous K̄| = ${formatGateNumber(Math.abs(previous ?? 0))} ≤ ε = ${formatGateNumber(epsilon)}`;
    case 'not-finite':
      return 'not evaluable: ρ or η is not a finite number';
  }
}

function conditionWords(row: { rho: number; eta: number }, config: InspectionConfig) {
  const d = formatGateNumber(config.alignmentThreshold);
  const g = formatGateNumber(config.competenceThreshold);
  const r = formatGateNumber(row.rho);
  const e = formatGateNumber(row.eta);
  return {
    aligned: `gap stopped shrinking: ρ = ${r} ≤ δ = ${d}`,
    notAligned: `gap still shrinking: ρ = ${r} > δ = ${d}`,
    competent: `student competent: η = ${e} ≥ γ = ${g}`,
    notCompetent: `student not yet competent: η = ${e} < γ = ${g}`,
  };
}

/** Which conditions the rule needs: the reason names only those. */
function needs(rule: GateRule): { alignment: boolean; competence: boolean } {
  switch (rule) {
    case 'alignment-and-competence':
      return { alignment: true, competence: true };
    case 'alignment-only':
      return { alignment: true, competence: false };
    case 'competence-only':
      return { alignment: false, competence: true };
    case 'observe-only':
      return { alignment: false, competence: false };
  }
}

/**
 * The inspector's rows for a gate's evaluations, in order. `config` and `rule` must be the ones the evaluations were
 * produced with (the words compare against its δ, γ and ε). Throws when the rows are not one gate's consecutive
 * evaluations (window indices 1, 2, 3, …), since the previous values would then be wrong.
 */
export function inspectGate(
  evaluations: readonly EvaluatedWindow[],
  config: InspectionConfig,
  rule: GateRule = 'alignment-and-competence',
): InspectionRow[] {
  const rows: InspectionRow[] = [];
  let previous: EvaluatedWindow | null = null;
  let retiredBefore = false;
  const need = needs(rule);
  for (const [i, e] of evaluations.entries()) {
    if (e.window_index !== i + 1) {
      throw new Error(`gate inspection: evaluation ${i + 1} has window_index ${e.window_index} (expected ${i + 1})`);
    }
    const previousKWindowMean = previous === null ? null : orNull(previous.k_window_mean);
    const previousPerformance = previous === null ? null : previous.student_performance;
    const rho = orNull(e.alignment_progress);
    const eta = orNull(e.competence_ratio);
    const valid = e.criterion_valid && rho !== null && eta !== null;
    const triggered = e.triggered ?? (e.retired && !retiredBefore);
    let aligned: boolean | null = null;
    let competent: boolean | null = null;
    let reason: string;
    const decision: Decision = retiredBefore ? 'already-retired' : triggered ? 'retire' : 'keep';
    if (!valid) {
      const why = invalidReason(previousKWindowMean, previous !== null, config.denominatorEpsilon);
      reason =
        decision === 'already-retired'
          ? 'the teacher had already retired'
          : invalidWords(why, previousKWindowMean, config.denominatorEpsilon);
      rows.push(row(e, previousKWindowMean, previousPerformance, rho, eta, false, why, null, null, decision, reason));
    } else {
      aligned = rho <= config.alignmentThreshold;
      competent = eta >= config.competenceThreshold;
      const words = conditionWords({ rho, eta }, config);
      const parts: string[] = [];
      if (need.alignment) parts.push(aligned ? words.aligned : words.notAligned);
      if (need.competence) parts.push(competent ? words.competent : words.notCompetent);
      if (decision === 'retire') reason = `retire: ${parts.join(' and ')}`;
      else if (decision === 'already-retired') reason = 'the teacher had already retired';
      else if (rule === 'observe-only') reason = 'keep: this schedule only observes the gate, it never retires';
      else {
        const failing: string[] = [];
        if (need.alignment && !aligned) failing.push(words.notAligned);
        if (need.competence && !competent) failing.push(words.notCompetent);
        reason = `keep: ${(failing.length > 0 ? failing : parts).join('; ')}`;
      }
      rows.push(
        row(e, previousKWindowMean, previousPerformance, rho, eta, true, null, aligned, competent, decision, reason),
      );
    }
    previous = e;
    retiredBefore = retiredBefore || e.retired;
  }
  return rows;
}

function row(
  e: EvaluatedWindow,
  previousKWindowMean: number | null,
  previousPerformance: number | null,
  rho: number | null,
  eta: number | null,
  valid: boolean,
  invalid: InvalidReason | null,
  aligned: boolean | null,
  competent: boolean | null,
  decision: Decision,
  reason: string,
): InspectionRow {
  return {
    windowIndex: e.window_index,
    step: e.step,
    windowEndStep: e.window_end_step,
    kWindowMean: orNull(e.k_window_mean),
    previousKWindowMean,
    alignmentProgress: rho,
    studentPerformance: e.student_performance,
    previousPerformance,
    competenceRatio: eta,
    valid,
    invalidReason: invalid,
    aligned,
    competent,
    decision,
    reason,
  };
}
