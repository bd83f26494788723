// Play / pause / step for a class: "Step" lets a paused run do exactly one training step (and its validation when
// due), then hold again — so a teacher can walk through a retirement decision one window at a time. It works through
// the shared control flags (runControl.ts): the page must be cross-origin isolated, as the lab's servers are.
import { useStore } from 'zustand';
import { publishStore } from '../publish/serviceWorkerClient';
import { useRun, runStore } from '../train/liveRun';
import './teaching.css';

export function StepButton() {
  const status = useRun((s) => s.status);
  const stage = useRun((s) => s.stage);
  const step = useRun((s) => s.step);
  const isolation = useStore(publishStore, (s) => s.isolation);
  const heldIn = useRun((s) => s.heldIn);
  if (status === 'idle') return null;
  const supported = runStore.getState().canStep();
  return (
    <div className="step-control" aria-label="step control">
      <button
        type="button"
        data-testid="step-button"
        disabled={status !== 'paused' || !supported}
        onClick={() => runStore.getState().stepOnce()}
        title={supported ? 'advance the paused run by exactly one training step' : 'needs a cross-origin isolated page'}
      >
        Step ▸|
      </button>
      <span className="muted" data-testid="step-position">
        {status !== 'paused'
          ? 'pause the run to step through it'
          : heldIn === 'validation'
            ? `held in a validation after ${stage ?? ''} step ${step} (Step finishes it)`
            : `held after ${stage ?? ''} step ${step}`}
      </span>
      {!supported && (
        <span className="muted" data-testid="step-unavailable">
          {isolation.text}
        </span>
      )}
    </div>
  );
}
