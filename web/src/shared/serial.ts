import { useCallback, useRef } from 'react';

/**
 * `read` one at a time: a call while one runs makes one more run after it (however many calls came
 * meanwhile) and resolves with it. Overlapping reads can finish in either order, and the older
 * answer, set last, would put back what the newer one saw change (the stream's first open and an
 * event, one after the other); keeping only the newest call's answer instead could wait for
 * ever under a steady run of events.
 */
export function useSerial(read: () => Promise<void>): () => Promise<void> {
  const latest = useRef(read);
  latest.current = read;
  const state = useRef<{ running: Promise<void> | null; again: boolean }>({ running: null, again: false });
  return useCallback(() => {
    const s = state.current;
    s.again = true;
    s.running ??= (async () => {
      try {
        while (s.again) {
          s.again = false;
          await latest.current();
        }
      } finally {
        s.running = null;
      }
    })();
    return s.running;
  }, []);
}
