// A value that follows `value` at most once every `intervalMs` (the latest one wins; with intervalMs 0 it follows at
// once). Charts redraw from it while a run trains: a recharts redraw costs far more than the data it shows.
import { useEffect, useRef, useState } from 'react';

export function useThrottledValue<T>(value: T, intervalMs: number): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    // unthrottled, the hook returns `value` itself (below); `shown` catches up once a throttle is set again
    if (intervalMs <= 0) {
      last.current = Date.now();
      return;
    }
    const wait = last.current + intervalMs - Date.now();
    const t = setTimeout(
      () => {
        last.current = Date.now();
        setShown(value);
      },
      Math.max(0, wait),
    );
    return () => clearTimeout(t);
  }, [value, intervalMs]);
  return intervalMs <= 0 ? value : shown;
}
