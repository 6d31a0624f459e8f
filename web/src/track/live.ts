/** What `/track/{code}/events` sends (src/features/tracking/live-hub.ts). */
export interface LiveState {
  status: string;
  rev: number;
  eta: string | null;
  stops: string | null;
  courier: { lat: number; lng: number } | null;
}

const POLL_MS = 20_000;

/**
 * Follows the delivery: the SSE stream while it works (EventSource reconnects by itself); after
 * repeated failures, or without EventSource, it polls the public JSON instead.
 */
export function follow(code: string, lang: string, apply: (s: LiveState) => void, onLine: (up: boolean) => void): void {
  const path = encodeURIComponent(code);
  let failures = 0;
  const poll = () => {
    const tick = async () => {
      try {
        const res = await fetch(`/v1/public/tracking/${path}?lang=${lang}`, {
          headers: { Accept: 'application/json' },
        });
        if (res.ok) {
          const t = await res.json();
          apply({
            status: t.status,
            rev: -1,
            eta: null,
            stops: null,
            courier: t.courier?.lat != null ? t.courier : null,
          });
          onLine(true);
        } else onLine(false);
      } catch {
        onLine(false);
      }
    };
    void tick();
    setInterval(tick, POLL_MS);
  };
  if (typeof EventSource === 'undefined') {
    poll();
    return;
  }
  const es = new EventSource(`/track/${path}/events?lang=${lang}`);
  es.addEventListener('tracking', (e) => {
    failures = 0;
    onLine(true);
    apply(JSON.parse((e as MessageEvent<string>).data) as LiveState);
  });
  es.onerror = () => {
    failures += 1;
    onLine(false);
    // A stream refused (429), cut by a proxy, or never opening: poll instead.
    if (es.readyState === EventSource.CLOSED || failures >= 3) {
      es.close();
      poll();
    }
  };
}
