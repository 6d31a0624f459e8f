/** What `/track/{code}/events` sends (src/features/tracking/live-hub.ts). */
export interface LiveState {
  status: string;
  rev: number;
  eta: string | null;
  stops: string | null;
  courier: { lat: number; lng: number } | null;
}

const POLL_MS = 20_000;

/** What polling reads of `/v1/public/tracking/{code}`. */
interface PublicView {
  status: string;
  timezone: string;
  eta_minutes: number | null;
  eta_window: { from: string; to: string } | null;
  stops_before: number | null;
  courier: { lat: number | null; lng: number | null } | null;
  timeline: unknown[];
}

/**
 * The arrival window and the stops before this one in the page's words, as the stream sends them
 * (src/features/tracking/page.ts etaText, stopsText): the server wrote the words into the page
 * (data-now on #eta, data-none/-one/-many on #stops, data-locale on #track). Polling must keep
 * them, not blank them.
 */
function etaText(t: PublicView): string | null {
  if (t.eta_window === null || t.eta_minutes === null) return null;
  const eta = document.getElementById('eta');
  if (t.eta_minutes <= 1) return eta?.dataset.now ?? null;
  const locale = document.getElementById('track')?.dataset.locale ?? 'en-GB';
  const f = new Intl.DateTimeFormat(locale, {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: t.timezone,
  });
  return `${f.format(new Date(t.eta_window.from))}–${f.format(new Date(t.eta_window.to))}`;
}

function stopsText(n: number | null): string | null {
  const d = document.getElementById('stops')?.dataset;
  if (n === null || !d) return null;
  if (n === 0) return d.none ?? null;
  return n === 1 ? (d.one ?? null) : (d.many ?? '').replace('{n}', String(n));
}

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
          const t = (await res.json()) as PublicView;
          apply({
            status: t.status,
            // The public view has no event sequence; each move adds a timeline entry.
            rev: t.timeline.length,
            eta: etaText(t),
            stops: stopsText(t.stops_before),
            courier:
              t.courier?.lat != null && t.courier.lng != null ? { lat: t.courier.lat, lng: t.courier.lng } : null,
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
