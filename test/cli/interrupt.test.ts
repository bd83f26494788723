// The CLIs' stop signals, in-process: SIGINT and SIGTERM reach the same handler, which names the signal; the latch
// remembers the first one so the command can exit with its code (130 or 143).
import { describe, expect, it } from 'vitest';
import { InterruptLatch, onInterrupt, SIGNAL_EXIT_CODE } from '../../cli/interrupt';

describe('onInterrupt', () => {
  it('calls first on SIGTERM as on SIGINT, merges a repeat within the window, then calls again', () => {
    const listen = (mergeMs: number) => {
      const seen: string[] = [];
      const remove = onInterrupt(
        (s) => seen.push(`first ${s}`),
        (s) => seen.push(`again ${s}`),
        mergeMs,
      );
      try {
        process.emit('SIGTERM', 'SIGTERM');
        process.emit('SIGINT', 'SIGINT');
      } finally {
        remove();
      }
      return seen;
    };
    expect(listen(60_000)).toEqual(['first SIGTERM']);
    expect(listen(-1)).toEqual(['first SIGTERM', 'again SIGINT']);
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });

  it('exits with 128 + the signal number: 130 for SIGINT, 143 for SIGTERM', () => {
    expect(SIGNAL_EXIT_CODE).toEqual({ SIGINT: 130, SIGTERM: 143 });
  });
});

describe('InterruptLatch', () => {
  it('remembers the first signal and hands the stop to a trainer attached later', () => {
    const latch = new InterruptLatch();
    latch.fire('SIGTERM');
    latch.fire('SIGINT');
    let stops = 0;
    latch.attach({ requestStop: () => void (stops += 1) });
    expect({ signal: latch.signal, requested: latch.requested, stops }).toEqual({
      signal: 'SIGTERM',
      requested: true,
      stops: 1,
    });
  });
});
