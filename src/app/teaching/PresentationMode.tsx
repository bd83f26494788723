// Presentation mode for a projector (1280×720): larger type, a guided tour through the default demo (tour.ts), and
// keyboard controls — P or Space pause/resume the run, S steps a paused run by one step, ←/→ move through the tour,
// T opens or closes the tour, Esc leaves presentation mode. Keys are ignored while typing in a field.
import { useCallback, useEffect, useState } from 'react';
import { runStore } from '../train/liveRun';
import { TOUR } from './tour';
import './teaching.css';

const HIGHLIGHT = 'tour-target';

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

function show(index: number): void {
  const stop = TOUR[index];
  if (!stop) return;
  if (window.location.hash.replace(/^#\/?/, '').split('?')[0] !== stop.view) window.location.hash = stop.view;
  // the view renders on the hash change: find the target once it is there
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      for (const el of document.querySelectorAll(`.${HIGHLIGHT}`)) el.classList.remove(HIGHLIGHT);
      const el = document.querySelector(stop.target);
      el?.classList.add(HIGHLIGHT);
      el?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    }),
  );
}

function togglePause(): void {
  const run = runStore.getState();
  if (run.status === 'running') run.pause();
  else if (run.status === 'paused' || run.status === 'pausing') run.resume();
}

export function PresentationMode() {
  const [on, setOn] = useState(false);
  const [tour, setTour] = useState<number | null>(null);
  useEffect(() => {
    document.documentElement.classList.toggle('presentation', on);
  }, [on]);
  const go = useCallback((i: number) => {
    const next = Math.max(0, Math.min(TOUR.length - 1, i));
    setTour(next);
    show(next);
  }, []);
  useEffect(() => {
    if (!on) return;
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const key = e.key.toLowerCase();
      if (key === 'arrowright' || key === 'pagedown') go((tour ?? -1) + 1);
      else if (key === 'arrowleft' || key === 'pageup') go((tour ?? 1) - 1);
      else if (key === 't') {
        if (tour === null) go(0);
        else setTour(null);
      } else if (key === 'p' || key === ' ') togglePause();
      else if (key === 's') runStore.getState().stepOnce();
      else if (key === 'escape') {
        setTour(null);
        setOn(false);
      } else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [on, tour, go]);
  const stop = tour === null ? null : TOUR[tour];
  return (
    <>
      <button
        type="button"
        className="present-button"
        aria-pressed={on}
        onClick={() => {
          setOn(!on);
          if (on) setTour(null);
        }}
        title="larger type, a guided tour and keyboard controls (P pause, S step, ←/→ tour, T tour, Esc leave)"
      >
        {on ? 'Leave presentation' : 'Present'}
      </button>
      {on && stop ? (
        <aside className="tour-card" aria-label="guided tour" data-testid="tour-card">
          <strong>{stop.title}</strong>
          <p>{stop.text}</p>
          <div className="tour-buttons">
            <button type="button" onClick={() => go((tour ?? 0) - 1)} disabled={tour === 0}>
              ‹ Back
            </button>
            <span className="muted">
              {(tour ?? 0) + 1} / {TOUR.length}
            </span>
            <button type="button" onClick={() => go((tour ?? 0) + 1)} disabled={tour === TOUR.length - 1}>
              Next ›
            </button>
            <button type="button" onClick={() => setTour(null)}>
              Close
            </button>
          </div>
        </aside>
      ) : on ? (
        <aside className="tour-card tour-hint" aria-label="presentation keys">
          <button type="button" onClick={() => go(0)}>
            Start the guided tour
          </button>{' '}
          <span className="muted">keys: T tour · ←/→ · P pause/resume · S step · Esc leave</span>
        </aside>
      ) : null}
    </>
  );
}
