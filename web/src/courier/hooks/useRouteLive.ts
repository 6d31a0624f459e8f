import { useEffect, useRef } from 'react';

/**
 * The route kept current while the app is open (DESIGN §16): the courier session's stream
 * (`GET /v1/stream`, its own messages only) says when the route changed without a move of the
 * phone's own (`route`: an order inserted by dispatch, a re-optimization applied), and the app
 * reads its stops again. Every (re)connection reads them too, since what happened while the phone
 * was off the network is not replayed for live messages; so does coming back online.
 */
export function useRouteLive(courierId: string | undefined, refresh: () => void | Promise<void>): void {
  const r = useRef(refresh);
  r.current = refresh;
  useEffect(() => {
    if (!courierId || typeof EventSource === 'undefined') return;
    const es = new EventSource('/v1/stream', { withCredentials: true });
    let opened = false;
    es.onopen = () => {
      // The first open follows the app's own first read; a reopen follows a gap.
      if (opened) void r.current();
      opened = true;
    };
    es.addEventListener('route', () => void r.current());
    const online = () => void r.current();
    window.addEventListener('online', online);
    return () => {
      es.close();
      window.removeEventListener('online', online);
    };
  }, [courierId]);
}
