// One chart redraw per task. A recharts redraw (its own store, selectors, SVG commit) costs ~5–15 ms on a slow
// machine; six charts that learn of new data in one task redraw in one task, a 50–90 ms freeze of the page. A chart
// that reads its data through useQueuedValue joins a FIFO and gets its new value in a task of its own (setTimeout
// 0 each), so the page answers input between any two redraws. Only the latest value a chart was given is drawn.
import { useEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';

const queue: (() => void)[] = [];
let pumping = false;

function pump(): void {
  const next = queue.shift();
  next?.();
  if (queue.length > 0) setTimeout(pump, 0);
  else pumping = false;
}

function enqueue(redraw: () => void): void {
  queue.push(redraw);
  if (!pumping) {
    pumping = true;
    setTimeout(pump, 0);
  }
}

/** `value`, handed to the component in its own task when it changes (the first value at once). */
export function useQueuedValue<T>(value: T): T {
  const [shown, setShown] = useState(value);
  const latest = useRef(value);
  const queued = useRef(false);
  useEffect(() => {
    latest.current = value;
    if (queued.current) return;
    queued.current = true;
    enqueue(() => {
      queued.current = false;
      // render, commit and the chart's own follow-up renders (recharts' store) now, inside this task: left to React's
      // scheduler, the redraws of several charts could land in one later task together
      flushSync(() => setShown(() => latest.current));
    });
  }, [value]);
  return shown;
}
