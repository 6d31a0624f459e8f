import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { outboxTransport } from '../client';
import { fixAtTap, withPosition } from '../position';
import { clearFailure, type Entry, enqueue, type Failure, failures, flush, type MoveEntry, pending } from '../queue';
import type { CourierSession } from './useCourierSession';

/**
 * The outbox as the screens see it (queue.ts does the work): what waits to sync, what the server
 * refused, whether the phone is online; sends when the network returns, every 15 s, and after
 * each new action.
 */
export function useOfflineQueue(
  session: CourierSession,
  /** An accepted move's order (the stop shows it at once), and a reload of the route after sending. */
  on: { moved: (order: unknown) => void; sent: () => Promise<void> },
) {
  const { client, meRef } = session;
  const transport = useMemo(() => outboxTransport(client), [client]);
  const [queued, setQueued] = useState<MoveEntry[]>([]);
  const [size, setSize] = useState(0);
  const [failed, setFailed] = useState<Failure[]>([]);
  const [online, setOnline] = useState(navigator.onLine);
  const flushing = useRef(false);
  const { moved, sent } = on;

  const refresh = useCallback(async () => {
    const all = await pending();
    setSize(all.length);
    setQueued(all.filter((e): e is MoveEntry => e.kind === 'move'));
    setFailed(await failures());
  }, []);

  const sync = useCallback(async () => {
    if (flushing.current || !meRef.current) return;
    flushing.current = true;
    try {
      const r = await flush(transport, moved);
      if (r.sent > 0) await sent();
    } finally {
      flushing.current = false;
      await refresh();
    }
  }, [meRef, transport, moved, sent, refresh]);

  useEffect(() => {
    void refresh();
    const up = () => {
      setOnline(true);
      void sync();
    };
    const down = () => setOnline(false);
    window.addEventListener('online', up);
    window.addEventListener('offline', down);
    const timer = setInterval(() => navigator.onLine && void sync(), 15_000);
    return () => {
      window.removeEventListener('online', up);
      window.removeEventListener('offline', down);
      clearInterval(timer);
    };
  }, [refresh, sync]);

  /** Writes entries to the outbox (all or none) with the phone's position at the tap, then tries to send. */
  const queue = useCallback(
    async (entries: Entry[]) => {
      const tapAt = Date.now();
      await enqueue(withPosition(entries, await fixAtTap(tapAt)));
      await refresh();
      void sync();
    },
    [refresh, sync],
  );

  const dismiss = useCallback((seq: number) => void clearFailure(seq).then(refresh), [refresh]);

  return { queued, size, failed, online, sync, queue, dismiss };
}
