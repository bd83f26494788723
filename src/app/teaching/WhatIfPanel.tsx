// What-if sliders: δ, γ, W and S_T (and the schedule rule) re-run the gate over the same log in the page — the very
// replay `npm run replay` runs (src/core/gateWhatIf.ts) — and show the new trigger step and teacher forwards saved
// against the original; below, the sensitivity strip over δ × γ. Each slider has a number box for exact values.
import { useDeferredValue, useMemo, useState, type ReactNode } from 'react';
import { compareOutcomes, gateOutcome, type WhatIfComparison } from '../../core/gateWhatIf';
import { GATE_DEFAULTS } from '../../core/gateConfig';
import { REPLAY_SCHEDULES, type ReplayOptions, type ReplaySchedule } from '../../core/replay/gateReplay';
import type { LogSource } from '../../core/replay/logRecords';
import { Select } from '../Select';
import { ExplainButton } from './ExplainButton';
import type { ExplanationId } from './explanations';
import { SensitivityStrip } from './SensitivityStrip';
import './teaching.css';

interface Knobs {
  delta: number;
  gamma: number;
  windowSize: number;
  teacherPerformance: number;
  schedule: ReplaySchedule;
}

function knobsOf(options: ReplayOptions): Knobs {
  const g = options.gate;
  return {
    delta: g.alignmentThreshold ?? GATE_DEFAULTS.alignmentThreshold,
    gamma: g.competenceThreshold ?? GATE_DEFAULTS.competenceThreshold,
    windowSize: g.windowSize ?? GATE_DEFAULTS.windowSize,
    teacherPerformance: g.teacherPerformance,
    schedule: options.schedule ?? 'adaptive',
  };
}

function optionsOf(base: ReplayOptions, k: Knobs): ReplayOptions {
  return {
    ...base,
    schedule: k.schedule,
    gate: {
      ...base.gate,
      alignmentThreshold: k.delta,
      competenceThreshold: k.gamma,
      windowSize: k.windowSize,
      teacherPerformance: k.teacherPerformance,
    },
  };
}

interface SliderSpec {
  key: 'delta' | 'gamma' | 'windowSize' | 'teacherPerformance';
  /** shown */
  label: ReactNode;
  /** the controls' accessible name (plain text, distinct from the replay form's labels) */
  name: string;
  explain: ExplanationId;
  min: number;
  max: number;
  step: number;
}

const SLIDERS: SliderSpec[] = [
  { key: 'delta', label: 'δ', name: 'δ', explain: 'delta', min: -0.5, max: 0.5, step: 0.01 },
  { key: 'gamma', label: 'γ', name: 'γ', explain: 'gamma', min: 0, max: 1.5, step: 0.01 },
  { key: 'windowSize', label: 'W', name: 'W', explain: 'window', min: 1, max: 20, step: 1 },
  {
    key: 'teacherPerformance',
    label: (
      <>
        S<sub>T</sub>
      </>
    ),
    name: 'teacher score',
    explain: 'teacher_performance',
    min: 0.05,
    max: 1,
    step: 0.01,
  },
];

/** A trigger step in words; a log that is still growing (a live run) has not retired "yet" rather than "never". */
const describeTrigger = (t: number | null, ongoing = false) =>
  t === null ? (ongoing ? 'not retired yet' : 'never retires') : `retires at step ${t}`;

function Comparison({ cmp, ongoing }: { cmp: WhatIfComparison; ongoing: boolean }) {
  const shift = cmp.triggerShift;
  return (
    <div className="comparison" aria-live="polite">
      <div>
        original: {describeTrigger(cmp.original.triggerStep, ongoing)} ·{' '}
        <span data-testid="whatif-original-saved">{cmp.original.teacherForwardsSaved}</span> teacher forwards saved
      </div>
      <div>
        what-if:{' '}
        <strong data-testid="whatif-trigger-step">
          {cmp.changed.triggerStep === null ? 'none' : cmp.changed.triggerStep}
        </strong>{' '}
        ({describeTrigger(cmp.changed.triggerStep)}
        {shift === null || shift === 0 ? '' : `, ${shift > 0 ? '+' : ''}${shift} steps`}) ·{' '}
        <strong data-testid="whatif-saved">{cmp.changed.teacherForwardsSaved}</strong> teacher forwards saved (
        {cmp.savedShift >= 0 ? '+' : ''}
        {cmp.savedShift}) <ExplainButton id="teacher_forward_skipped" />
      </div>
    </div>
  );
}

export function WhatIfPanel({
  sources,
  options,
  ongoing = false,
}: {
  sources: readonly LogSource[];
  options: ReplayOptions;
  /** the log is a run still going (paused): its original has not retired "yet" */
  ongoing?: boolean;
}) {
  const original = useMemo(() => knobsOf(options), [options]);
  const [knobs, setKnobs] = useState<Knobs>(original);
  const deferred = useDeferredValue(knobs);
  const changedOptions = useMemo(() => optionsOf(options, deferred), [options, deferred]);
  const result = useMemo((): { cmp: WhatIfComparison } | { error: string } => {
    try {
      return { cmp: compareOutcomes(gateOutcome(sources, options), gateOutcome(sources, changedOptions)) };
    } catch (e) {
      return { error: e instanceof Error ? e.message.replace(/^gate config: /, '') : String(e) };
    }
  }, [sources, options, changedOptions]);
  // the strip varies δ and γ itself: it depends only on the other knobs
  const { windowSize, teacherPerformance, schedule } = deferred;
  const stripOptions = useMemo(
    () =>
      optionsOf(options, { delta: original.delta, gamma: original.gamma, windowSize, teacherPerformance, schedule }),
    [options, original, windowSize, teacherPerformance, schedule],
  );
  const set = (key: SliderSpec['key'], text: string) => {
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value)) return;
    setKnobs((k) => ({ ...k, [key]: value }));
  };
  return (
    <section className="what-if" aria-label="what-if">
      <h3>What if? Move the gate’s knobs over this same log</h3>
      <div className="sliders">
        {SLIDERS.map((s) => {
          const value = knobs[s.key];
          return (
            <div className="slider" key={s.key}>
              <div className="slider-head">
                <label htmlFor={`whatif-${s.key}`}>{s.label} (what-if)</label>
                <ExplainButton id={s.explain} />
                <input
                  id={`whatif-${s.key}`}
                  aria-label={`${s.name} (what-if)`}
                  type="number"
                  step={s.step}
                  value={value}
                  onChange={(e) => set(s.key, e.currentTarget.value)}
                />
              </div>
              <input
                type="range"
                aria-label={`${s.name} slider`}
                min={Math.min(s.min, value)}
                max={Math.max(s.max, value)}
                step={s.step}
                value={value}
                onChange={(e) => set(s.key, e.currentTarget.value)}
              />
            </div>
          );
        })}
        <div className="slider">
          <div className="slider-head">
            <label htmlFor="whatif-schedule">rule (what-if)</label>
            <ExplainButton id="schedule" />
            <Select
              id="whatif-schedule"
              value={knobs.schedule}
              choices={REPLAY_SCHEDULES}
              onChange={(schedule) => setKnobs((k) => ({ ...k, schedule }))}
            />
          </div>
          <button type="button" onClick={() => setKnobs(original)}>
            Reset to the replay’s settings
          </button>
        </div>
      </div>
      {'cmp' in result ? (
        <Comparison cmp={result.cmp} ongoing={ongoing} />
      ) : (
        <p role="alert" className="error" data-testid="whatif-error">
          {result.error}
        </p>
      )}
      <SensitivityStrip sources={sources} options={stripOptions} current={deferred} />
    </section>
  );
}
