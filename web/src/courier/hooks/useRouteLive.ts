import { useEffect, useRef } from 'react';

/**
 * The route kept current while the app is open (DESIGN §16): the courier session's stream
 * (`GET /v1/stream`, its own messages only) says when the route changed without a move of the
 * phone's own (`route`: an order inserted by dispatch, a re-optimization applied), and the app
 * reads its stops again. Every connection reads them too, the first included: live messages are
 * not replayed, so a change between the app's first read and the stream's open, or while the phone
 * was off the network, comes in no message; so does coming back online.
 */
export function useRouteLive(courierId: string | undefined, refresh: () => void | Promise<void>): void {
  const r = useRef(refresh);
  r.current = refresh;
  useEffect(() => {
    if (!courierId || typeof EventSource === 'undefined') return;
    const es = new EventSource('/v1/stream', { withCredentials: true });
    es.onopen = () => void r.current();
    es.addEventListener('route', () => void r.current());
    const online = () => void r.current();
    window.addEventListener('online', online);
    return () => {
      es.close();
      window.removeEventListener('online', online);
    };
  }, [courierId]);
}
