// Explain buttons for charts drawn by a view this module does not own (the Train view's MetricCharts): each chart is
// found by its test id and gets an explain button in its caption, through a portal, so the view needs one line
// (`<ChartExplainers charts={TRAIN_CHARTS} />`) and no change to its charts. A MutationObserver re-finds the
// captions when the view re-mounts its charts.
import { useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import { ExplainButton } from './ExplainButton';
import type { ExplanationId } from './explanations';
import './teaching.css';

/** The Train view's charts (their data-testid) and what explains each. */
export const TRAIN_CHARTS: Readonly<Record<string, ExplanationId>> = {
  'train-window-mean': 'k_window_mean',
  'train-alignment': 'alignment_progress',
  'train-competence': 'competence_ratio',
  'train-success': 'val_success',
  'train-entropy': 'entropy',
  'train-grad-cosine': 'grad_cosine',
};

function findCaptions(charts: Readonly<Record<string, ExplanationId>>): [string, Element][] {
  return Object.keys(charts).flatMap((testId): [string, Element][] => {
    const caption = document.querySelector(`[data-testid="${testId}"] > figcaption`);
    return caption ? [[testId, caption]] : [];
  });
}

const same = (a: [string, Element][], b: [string, Element][]) =>
  a.length === b.length && a.every(([id, el], i) => b[i]?.[0] === id && b[i]?.[1] === el);

export function ChartExplainers({ charts }: { charts: Readonly<Record<string, ExplanationId>> }) {
  const [targets, setTargets] = useState<[string, Element][]>([]);
  useEffect(() => {
    const scan = () => {
      const found = findCaptions(charts);
      setTargets((prev) => (same(prev, found) ? prev : found));
    };
    scan();
    const observer = new MutationObserver(scan);
    observer.observe(document.body, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [charts]);
  return (
    <>
      {targets.map(([testId, caption]) => {
        const id = charts[testId];
        return id ? createPortal(<ExplainButton id={id} />, caption, testId) : null;
      })}
    </>
  );
}

/** The run's knobs (set through the preset and overrides) with their explanations, in one line. */
export function KnobExplainers() {
  const knobs: [string, ExplanationId][] = [
    ['λ_opd', 'lambda_opd'],
    ['schedule', 'schedule'],
    ['estimator', 'estimator'],
    ['distillation form', 'distill_form'],
    ['δ', 'delta'],
    ['γ', 'gamma'],
    ['W', 'window'],
    ['S_T', 'teacher_performance'],
    ['ActObs λ', 'actobs_loss'],
  ];
  return (
    <div className="knob-explainers" aria-label="explain the run's settings">
      <span className="muted">Explain the settings:</span>
      {knobs.map(([label, id]) => (
        <span key={id}>
          {label} <ExplainButton id={id} />
        </span>
      ))}
    </div>
  );
}
