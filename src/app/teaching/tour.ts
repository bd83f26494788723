// The guided tour of presentation mode: the default demo's stages in the order a class meets them
// (demonstrations → SFT → teacher → the student under the gate → retirement → evaluation → what-if). Each stop
// names the view to show, the element to bring into view (a CSS selector) and what to wait for while that element
// does not exist yet. Every claim about the run on screen is computed from that run (TourFacts); where the run has
// not got there, the stop asks the class a question instead of asserting an outcome.

import { type SeedSpread, seedsText, seedSpreadText } from '../../core/experiment/seedSpread';
import { frameOf, lastFrame, type PlaybackTimeline } from '../../core/runLog/runPlayback';

export interface TourFacts {
  /** the run's preset name (config.name), or null before any run */
  readonly preset: string | null;
  /** whether a run is starting, running, paused or stopping */
  readonly active: boolean;
  /** whether the run on screen is a recording played back (not trained here) */
  readonly recorded?: boolean;
  /** cos(∇ action loss, ∇ observation loss) at each measured SFT step, in step order */
  readonly cosine: readonly { readonly step: number; readonly value: number }[];
  /** S_T, the teacher's validation success as the run logged it (0–1), or null before the student stage */
  readonly teacherPerformance: number | null;
  /** K̄ₘ of each completed window, at the step that completed it */
  readonly windows: readonly { readonly step: number; readonly mean: number }[];
  /** the newest gate evaluation: its step, ρ and η (NaN when the criterion had no previous window) */
  readonly lastEvaluation: { readonly step: number; readonly rho: number; readonly eta: number } | null;
  /** the step the teacher retired at, or null while it has not */
  readonly triggerStep: number | null;
  /** the finished run's test success (0–1) and teacher forwards skipped, or null before the run ends */
  readonly result: { readonly testSuccess: number; readonly forwardsSkipped: number } | null;
  /** the recorded lesson's seed among the reporting seeds (public/demo/seed-spread.json), once loaded */
  readonly seedSpread?: SeedSpread | null;
}

export interface TourStop {
  readonly title: string;
  /** what to say and do at this stop, from the run on screen */
  readonly text: (facts: TourFacts) => string;
  /** the view (URL hash) to show */
  readonly view: 'train' | 'replay' | 'method';
  /** the element to scroll to and outline; the first match */
  readonly target: string;
  /** shown instead of a highlight while the target does not exist yet: what brings it */
  readonly waitFor: string;
  /** where a recorded run's playhead goes at this stop (the tour runs on a recording by default, tourPlayback.ts) */
  readonly recordedAt: RecordedMoment;
}

/**
 * A moment of a recorded run: its start, the end of SFT, the first student step, half-way to the retirement, the
 * retirement itself (the trigger step; the end when the teacher never retired), the end.
 */
export type RecordedMoment = 'start' | 'sft-end' | 'student-start' | 'before-retirement' | 'retirement' | 'end';

/** A signed number as the class reads it off a chart: −0.10, +0.17. */
export const signed = (x: number, digits = 2): string => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(digits)}`;
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

/** The held-out seeds beside the run on screen: one seed is not the typical seed (shell's lesson only). */
function spreadClaim(f: TourFacts): string {
  const s = f.seedSpread;
  if (!s || f.preset !== 'retire-shell') return '';
  return f.recorded
    ? ` ${s.comparison}, this recording against the held-out reporting seeds — ${seedSpreadText(s)}.`
    : ` ${s.comparison} over the held-out reporting seeds — ${seedsText(s)}.`;
}

function cosineClaim(f: TourFacts): string {
  const first = f.cosine[0];
  const last = f.cosine[f.cosine.length - 1];
  if (!first || !last || first === last)
    return 'Ask the class: will the cosine between the action-loss and the observation-loss gradients rise, fall or stay near zero as SFT goes on?';
  return (
    `On this run the cosine between the action-loss and the observation-loss gradients went from ` +
    `${signed(first.value)} at SFT step ${first.step} to ${signed(last.value)} at step ${last.step}` +
    ` (${last.step - first.step} steps). Near zero, the observation loss pulls in its own direction.`
  );
}

function windowClaim(f: TourFacts): string {
  const first = f.windows[0];
  const last = f.windows[f.windows.length - 1];
  if (!first || !last) return 'No window has closed yet. Ask the class: will the gap shrink, and how fast?';
  if (first === last)
    return `The first window closed at step ${first.step} with K̄ₘ = ${first.mean.toFixed(3)}. Ask the class: will the next one be smaller?`;
  const verb = last.mean < first.mean ? 'shrank' : last.mean > first.mean ? 'grew' : 'stayed';
  return (
    `On this run K̄ₘ ${verb} from ${first.mean.toFixed(3)} (step ${first.step}) to ${last.mean.toFixed(3)} ` +
    `(step ${last.step}) over ${f.windows.length} windows.`
  );
}

function evaluationClaim(f: TourFacts): string {
  const e = f.lastEvaluation;
  if (!e)
    return 'No validation has been evaluated by the gate yet. Ask the class: what must ρ and η be for the teacher to retire?';
  if (!Number.isFinite(e.rho))
    return `At step ${e.step} the gate had no previous window to compare with: ρ and η are not defined yet.`;
  return `At the newest validation (step ${e.step}) ρ = ${signed(e.rho, 3)} and η = ${e.eta.toFixed(3)}.`;
}

export const TOUR: readonly TourStop[] = [
  {
    title: '1 · The pipeline',
    text: (f) =>
      (f.active
        ? `A ${f.preset ?? ''} run is going. `
        : f.recorded
          ? `This is a recording of ${f.preset ?? 'a run'}: the tour moves its playhead (untick “recording” on this card to train it live instead). `
          : 'Pick the retire-shell preset and press Start (or Space in presentation mode). ') +
      'Everything runs in this tab: demonstrations → SFT → a teacher that sees a skill → the student with GRPO + ' +
      'λ·OPD, whose teacher retires.',
    view: 'train',
    target: '.run-controls',
    waitFor: 'The run controls appear once the presets are loaded.',
    recordedAt: 'start',
  },
  {
    title: '2 · Demonstrations and SFT',
    text: (f) =>
      'A scripted explorer that never sees the skill writes the demonstrations, so they do not tell where files ' +
      'are; SFT learns them. ' +
      cosineClaim(f),
    view: 'train',
    target: '[data-testid="train-grad-cosine"]',
    waitFor: 'The cosine chart fills during SFT.',
    recordedAt: 'sft-end',
  },
  {
    title: '3 · The teacher',
    text: (f) =>
      'The teacher has the student’s architecture but also reads a skill text that says where files are (some ' +
      'entries are wrong). retire-shell loads a shipped teacher, frozen. Its validation score is S_T, the yardstick ' +
      'of the competence ratio η' +
      (f.teacherPerformance !== null
        ? `: on this run S_T = ${pct(f.teacherPerformance)}.`
        : '. Ask the class: how good can a teacher be that follows a partly wrong skill?'),
    view: 'train',
    target: '[aria-label="run status"]',
    waitFor: 'Start a run: its status line shows the stage it is in.',
    recordedAt: 'student-start',
  },
  {
    title: '4 · The student under the gate',
    text: (f) =>
      'The student never sees the skill. Each step the gate logs K = −g, the gap to the teacher; every W steps a ' +
      'window closes with its mean K̄ₘ. ' +
      windowClaim(f) +
      ' Press P(ause), then S(tep) to go one step at a time.',
    view: 'train',
    target: '[data-testid="train-window-mean"]',
    waitFor: 'The K̄ₘ chart fills in the student stage.',
    recordedAt: 'before-retirement',
  },
  {
    title: '5 · ρ and η at each validation',
    text: (f) =>
      'At a validation the gate compares the newest window with the previous one: ρ > 0 means the gap still ' +
      'shrinks. η compares the student’s score with S_T. ' +
      evaluationClaim(f) +
      ' Open the “?” beside a chart for the formula.',
    view: 'train',
    target: '[data-testid="train-alignment"]',
    waitFor: 'The ρ chart fills at the student stage’s validations.',
    recordedAt: 'before-retirement',
  },
  {
    title: '6 · Retirement',
    text: (f) =>
      'The inspector has one row per evaluated window and says why the gate kept or retired the teacher. ' +
      (f.triggerStep !== null
        ? `On this run the gate retired the teacher at step ${f.triggerStep} (the red row): from then on the ` +
          'teacher’s forward pass is skipped.'
        : 'This run has not retired its teacher (yet). Ask the class: at which validation will it, if at all?'),
    view: 'train',
    // the red row itself: bringing it into view scrolls the inspector's table as well as the page
    target: '.gate-inspector tr[data-retired="true"]',
    waitFor: 'The inspector’s red row appears with the evaluation that retires the teacher (in the student stage).',
    recordedAt: 'retirement',
  },
  {
    title: '7 · Inside a trajectory',
    text: () =>
      'Paused in the student stage, sample episodes: tokens coloured by class, and on each action token the gap ' +
      'between the teacher’s and the student’s log-probs. Sample again later: has the gap closed?',
    view: 'train',
    target: '.trajectory-viewer',
    waitFor: 'The trajectory viewer is there while a run is going: start one, then pause it in the student stage (P).',
    recordedAt: 'retirement',
  },
  {
    title: '8 · Evaluation',
    text: (f) =>
      'At the end the student is tested on held-out tasks: success rate and pass@k, and how many teacher forwards ' +
      'the retirement saved. ' +
      (f.result
        ? `This run: test success ${pct(f.result.testSuccess)}` +
          (f.teacherPerformance !== null ? ` against S_T = ${pct(f.teacherPerformance)}` : '') +
          `, ${f.result.forwardsSkipped} teacher forwards skipped.`
        : 'Ask the class: will the retired student end above or below S_T? Compare with opd-shell (OPD throughout).') +
      spreadClaim(f),
    view: 'train',
    target: '[aria-label="run summary"]',
    waitFor: 'The summary appears when the run finishes.',
    recordedAt: 'end',
  },
  {
    title: '9 · What if?',
    text: () =>
      'Replay the run’s own log (or a real verl/TRL log) and move δ, γ, W and S_T: the trigger step and the teacher ' +
      'forwards saved change at once; the strip shows how little the trigger moves over a wide δ × γ grid.',
    view: 'replay',
    target: '.what-if',
    waitFor: 'Choose a log (or “Replay this run’s gate” under the run summary) and run the replay: the sliders appear.',
    recordedAt: 'end',
  },
];

/** The frame of a recorded run that shows `moment`. */
export function momentFrame(t: PlaybackTimeline, moment: RecordedMoment): number {
  const end = lastFrame(t);
  const retirement = t.events.find((e) => e.type === 'retirement');
  const trigger = retirement?.type === 'retirement' ? retirement.triggerStep : null;
  switch (moment) {
    case 'start':
      return 0;
    case 'sft-end':
      return t.positions.reduce((f, p, i) => (p.stage === 'sft' ? i : f), 0);
    case 'student-start':
      return frameOf(t, 'student', 1);
    case 'before-retirement':
      return trigger === null ? Math.floor(end / 2) : frameOf(t, 'student', Math.floor(trigger / 2));
    case 'retirement':
      return trigger === null ? end : frameOf(t, 'student', trigger);
    case 'end':
      return end;
  }
}
