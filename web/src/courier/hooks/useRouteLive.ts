import { useEffect, useRef } from 'react';

const WORDS: Record<string, string> = {
  reoptimized: 'Dispatch re-ordered your stops',
  dispatched: 'Dispatch sent you new stops',
};

function reasonOf(data: string): string {
  try {
    const p = JSON.parse(data) as { reason?: unknown; data?: { reason?: unknown } };
    return String(p.data?.reason ?? p.reason ?? '');
  } catch {
    return '';
  }
}

/**
 * The route kept current while the app is open (DESIGN §16): the courier session's stream
 * (`GET /v1/stream`, its own messages only) says when its route changed (`route`: a route made or
 * an order inserted by dispatch, a re-optimization applied, one of its orders moved, by its other
 * phone or dispatch's desk), and the app reads its stops again. A courier session gets no order
 * events (docs/stream.md, "Scopes": an order event is the merchant's webhook envelope), so the
 * `route` message is how it learns of them. Every connection reads them too, the first included:
 * live messages are not replayed, so a change between the app's first read and the stream's open,
 * or while the phone was off the network, comes in no message; so does coming back online.
 *
 * As a backstop (a stream cut without the browser noticing, a message lost with an instance), the
 * phone also reads its route when it is looked at again (the page becomes visible: the courier
 * picks this phone up) and, while it is on screen and online, every `everyMs`: a minute, so a
 * thousand phones add about 17 reads a second, not a hundred (refusals.ts covers a move sent from
 * a route read before another phone's).
 */
export function useRouteLive(
  courierId: string | undefined,
  refresh: () => void | Promise<void>,
  everyMs = 60_000,
  tell: (text: string) => void = () => {},
): void {
  const r = useRef(refresh);
  r.current = refresh;
  const say = useRef(tell);
  say.current = tell;
  useEffect(() => {
    if (!courierId) return;
    const es = typeof EventSource === 'undefined' ? null : new EventSource('/v1/stream', { withCredentials: true });
    if (es) {
      es.onopen = () => void r.current();
      es.addEventListener('route', (ev) => {
        void r.current();
        // Stops that move under the courier's thumb are said, not only shown: dispatch's changes.
        // A move (`moved`) is often the courier's own, from this phone or its other one: quiet.
        const text = WORDS[reasonOf((ev as MessageEvent<string>).data)];
        if (text) say.current(text);
      });
    }
    const online = () => void r.current();
    const shown = () => document.visibilityState === 'visible' && void r.current();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible' && navigator.onLine) void r.current();
    }, everyMs);
    window.addEventListener('online', online);
    document.addEventListener('visibilitychange', shown);
    return () => {
      es?.close();
      clearInterval(timer);
      window.removeEventListener('online', online);
      document.removeEventListener('visibilitychange', shown);
    };
  }, [courierId, everyMs]);
}
