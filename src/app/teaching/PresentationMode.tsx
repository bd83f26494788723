// Presentation mode for a projector (1280×720 and up): larger type, a guided tour through the default demo
// (tour.ts), and keyboard controls — Space starts a run when none is going and otherwise pauses/resumes it, P
// pauses/resumes, S steps a paused run by one step, ←/→ move through the tour, T opens or closes the tour, Esc
// leaves presentation mode. Keys are ignored while typing in a field.
//
// Nothing fixed covers the page: the keys bar sits in the header's flow, and while the tour is open the page gives
// up a column on the right (html.touring) where the tour card is docked beside its target, level with it.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { runStore, useRun } from '../train/liveRun';
import { isActive } from '../train/liveRunState';
import { TOUR } from './tour';
import { tourFacts } from './tourFacts';
import { useSeedSpread } from '../demo/SeedSpreadLine';
import { tourLive, tourOnRecording } from './tourPlayback';
import { usePlayback } from '../train/playbackStore';
import './teaching.css';

const HIGHLIGHT = 'tour-target';

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

const currentView = () => window.location.hash.replace(/^#\/?/, '').split('?')[0];

function togglePause(): void {
  const run = runStore.getState();
  if (run.status === 'running') run.pause();
  else if (run.status === 'paused' || run.status === 'pausing') run.resume();
}

/** Space: start the Train form's run when none is going (in the Train view), else pause or resume. */
function startOrToggle(): void {
  if (isActive(runStore.getState().status)) return togglePause();
  if (currentView() !== 'train') window.location.hash = 'train';
  // the form validates the preset, seed and overrides; an invalid form starts nothing and says why
  requestAnimationFrame(() => document.querySelector<HTMLFormElement>('form.run-controls')?.requestSubmit());
}

/** The card's top edge (px): level with the target, kept inside the viewport. */
function cardTop(target: Element | null, card: HTMLElement | null): number {
  const margin = 12;
  const height = card?.offsetHeight ?? 0;
  const top = target ? target.getBoundingClientRect().top : margin;
  return Math.max(margin, Math.min(top, window.innerHeight - height - margin));
}

function TourCard({
  index,
  go,
  close,
  live,
  setLive,
}: {
  index: number;
  go: (i: number) => void;
  close: () => void;
  live: boolean;
  setLive: (live: boolean) => void;
}) {
  const stop = TOUR[index];
  const recorded = usePlayback((p) => p.source !== null);
  const seedSpread = useSeedSpread();
  const facts = { ...tourFacts(useRun((s) => s)), recorded, seedSpread };
  const [top, setTop] = useState(12);
  // bumped once the view has rendered after a move, so that the card re-reads whether its target is there
  const [, setRendered] = useState(0);
  const card = useRef<HTMLElement>(null);
  // re-checked on every render (the run's events re-render the card): the target appears as the run gets there
  const present = stop ? document.querySelector(stop.target) !== null : false;
  useLayoutEffect(() => {
    const place = () => setTop(cardTop(stop ? document.querySelector(stop.target) : null, card.current));
    place();
    window.addEventListener('scroll', place, { passive: true });
    window.addEventListener('resize', place);
    return () => {
      window.removeEventListener('scroll', place);
      window.removeEventListener('resize', place);
    };
  }, [stop, present]);
  // Outline the stop's target once it is there and keep it outlined: the target may appear with no change to the run
  // (a lazily loaded panel, a row rendered after a seek), and the view may replace it with a fresh element (a panel
  // remounted once the recording's log has loaded) that would otherwise lose the outline.
  useEffect(() => {
    if (!stop) return;
    let outlined: Element | null | undefined;
    let scrolled = false;
    const outline = () => {
      const el = document.querySelector(stop.target);
      if (el === outlined && (el === null || el.classList.contains(HIGHLIGHT))) return;
      for (const old of document.querySelectorAll(`.${HIGHLIGHT}`)) if (old !== el) old.classList.remove(HIGHLIGHT);
      outlined = el;
      if (el) {
        el.classList.add(HIGHLIGHT);
        // brought into view once per stop, so that a remount does not pull the page from where the reader scrolled
        if (!scrolled) el.scrollIntoView({ block: 'center' });
        scrolled = true;
      }
      setRendered((n) => n + 1);
      setTop(cardTop(el, card.current));
    };
    // the view renders on the hash change: look after two frames, then on every change to the page
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(outline);
    });
    const observer = new MutationObserver(outline);
    observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
    };
  }, [index, stop]);
  if (!stop) return null;
  return (
    <aside ref={card} className="tour-card" aria-label="guided tour" data-testid="tour-card" style={{ top }}>
      <strong>{stop.title}</strong>
      <p data-testid="tour-text">{stop.text(facts)}</p>
      {present ? null : (
        <p className="tour-wait" data-testid="tour-wait">
          {stop.waitFor}
        </p>
      )}
      <div className="tour-buttons">
        <button type="button" onClick={() => go(index - 1)} disabled={index === 0}>
          ‹ Back
        </button>
        <span className="muted">
          {index + 1} / {TOUR.length}
        </span>
        <button type="button" onClick={() => go(index + 1)} disabled={index === TOUR.length - 1}>
          Next ›
        </button>
        <button type="button" onClick={close}>
          Close
        </button>
        <label title="the tour plays the shipped recording of retire-shell; untick to train it live instead">
          <input
            type="checkbox"
            data-testid="tour-recording"
            checked={!live}
            onChange={(e) => setLive(!e.currentTarget.checked)}
          />{' '}
          recording
        </label>
      </div>
    </aside>
  );
}

export function PresentationMode() {
  const [on, setOn] = useState(false);
  const [tour, setTour] = useState<number | null>(null);
  // the tour runs on the shipped recording unless the class trains it live instead
  const [live, setLiveState] = useState(false);
  const setLive = useCallback(
    (l: boolean) => {
      setLiveState(l);
      const stop = tour === null ? undefined : TOUR[tour];
      if (l) tourLive();
      else if (stop) void tourOnRecording(stop.recordedAt, stop.view);
    },
    [tour],
  );
  useEffect(() => {
    document.documentElement.classList.toggle('presentation', on);
    document.documentElement.classList.toggle('touring', on && tour !== null);
    if (!on || tour === null)
      for (const el of document.querySelectorAll(`.${HIGHLIGHT}`)) el.classList.remove(HIGHLIGHT);
  }, [on, tour]);
  const go = useCallback(
    (i: number) => {
      const next = Math.max(0, Math.min(TOUR.length - 1, i));
      const stop = TOUR[next];
      if (stop && currentView() !== stop.view) window.location.hash = stop.view;
      if (stop && !live) void tourOnRecording(stop.recordedAt, stop.view);
      setTour(next);
    },
    [live],
  );
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
      } else if (key === 'p') togglePause();
      else if (key === ' ') startOrToggle();
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
        title="larger type, a guided tour and keyboard controls (Space start/pause, S step, ←/→ tour, T tour, Esc leave)"
      >
        {on ? 'Leave presentation' : 'Present'}
      </button>
      {on ? (
        <p className="present-keys" aria-label="presentation keys">
          {tour === null ? (
            <button type="button" onClick={() => go(0)}>
              Start the guided tour
            </button>
          ) : null}{' '}
          <span className="muted">
            keys: T tour · ←/→ · Space start or pause/resume · P pause/resume · S step · Esc leave
          </span>
        </p>
      ) : null}
      {on && tour !== null ? (
        <TourCard index={tour} go={go} close={() => setTour(null)} live={live} setLive={setLive} />
      ) : null}
    </>
  );
}
