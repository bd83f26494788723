// The guided tour of presentation mode: the default demo's stages in the order a class meets them
// (demonstrations → SFT → teacher → the student under the gate → retirement → evaluation → what-if). Data only:
// each stop names the view to show and the element to bring into view (a CSS selector); the quantities' own texts
// stay in explanations.ts (the "?" buttons the stops point at).

export interface TourStop {
  readonly title: string;
  /** what to say and do at this stop */
  readonly text: string;
  /** the view (URL hash) to show */
  readonly view: 'train' | 'replay' | 'method';
  /** the element to scroll to and outline; the first match */
  readonly target: string;
}

export const TOUR: readonly TourStop[] = [
  {
    title: '1 · The pipeline',
    text:
      'Pick the retire-shell preset and press Start (or Space in presentation mode). Everything runs in this tab: ' +
      'demonstrations → SFT → a teacher that sees a skill → the student with GRPO + λ·OPD, whose teacher retires.',
    view: 'train',
    target: '.run-controls',
  },
  {
    title: '2 · Demonstrations and SFT',
    text:
      'A scripted explorer that never sees the skill writes the demonstrations, so they do not tell where files are; ' +
      'SFT learns them. The cosine between the action-loss and the observation-loss gradients (ActObs) falls towards ' +
      'zero within a few steps.',
    view: 'train',
    target: '[data-testid="train-grad-cosine"]',
  },
  {
    title: '3 · The teacher',
    text:
      'The teacher has the student’s architecture but also reads a skill text that says where files are (some ' +
      'entries are wrong). retire-shell loads a shipped teacher, frozen. Its validation score is S_T, the yardstick ' +
      'of the competence ratio η.',
    view: 'train',
    target: '[aria-label="run status"]',
  },
  {
    title: '4 · The student under the gate',
    text:
      'The student never sees the skill. Each step the gate logs K = −g, the gap to the teacher; every W steps a window ' +
      'closes with its mean K̄ₘ. Watch it shrink. Press P(ause), then S(tep) to go one step at a time.',
    view: 'train',
    target: '[data-testid="train-window-mean"]',
  },
  {
    title: '5 · ρ and η at each validation',
    text:
      'At a validation the gate compares the newest window with the previous one: ρ > 0 means the gap still shrinks. ' +
      'η compares the student’s score with S_T. Open the “?” beside a chart for the formula.',
    view: 'train',
    target: '[data-testid="train-alignment"]',
  },
  {
    title: '6 · Retirement',
    text:
      'The inspector has one row per evaluated window and says why the gate kept or retired the teacher. The red row ' +
      'is the retirement: from then on the teacher’s forward pass is skipped.',
    view: 'train',
    target: '.gate-inspector',
  },
  {
    title: '7 · Inside a trajectory',
    text:
      'Paused in the student stage, sample episodes: tokens coloured by class, and on each action token the gap ' +
      'between the teacher’s and the student’s log-probs. Sample again later: has the gap closed?',
    view: 'train',
    target: '.trajectory-viewer',
  },
  {
    title: '8 · Evaluation',
    text:
      'At the end the student is tested on held-out tasks: success rate and pass@k, and how many teacher forwards ' +
      'the retirement saved. In the lab’s runs the retired student ends above S_T: on its own, GRPO fixes the facts ' +
      'the wrong skill entries taught it, which OPD throughout (opd-shell) never does.',
    view: 'train',
    target: '[aria-label="run summary"]',
  },
  {
    title: '9 · What if?',
    text:
      'Replay the run’s own log (or a real verl/TRL log) and move δ, γ, W and S_T: the trigger step and the teacher ' +
      'forwards saved change at once; the strip shows how little the trigger moves over a wide δ × γ grid.',
    view: 'replay',
    target: '.what-if',
  },
];
