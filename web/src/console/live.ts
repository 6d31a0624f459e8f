import { useCallback, useEffect, useRef, useState } from 'react';
import { POLL_MS } from './poll';

/** The order id named by an order event's data (DESIGN §13: the webhook envelope). */
export function orderIdOf(envelope: unknown): string | null {
  const data = (envelope as { data?: Record<string, unknown> } | null)?.data;
  if (!data) return null;
  if (typeof data.id === 'string' && data.id.startsWith('ord_')) return data.id;
  const o = data.order;
  if (typeof o === 'string') return o;
  if (o && typeof o === 'object' && typeof (o as { id?: unknown }).id === 'string') return (o as { id: string }).id;
  if (typeof data.order_id === 'string') return data.order_id;
  return null;
}

/**
 * The stream's address for this tab, or null when it has none. EventSource sends the cookie but no
 * headers, so a session names its environment with `?mode=` (what Ruta-Mode does for the other
 * requests); with an API key in the tab there is no stream (no Authorization header), and pages poll.
 */
export function streamable(s: { me: { via: string } | null; mode: string }): string | null {
  if (s.me?.via !== 'session') return null;
  return s.mode === 'live' ? '/v1/stream?mode=live' : '/v1/stream';
}

export interface LiveHandlers {
  order?: (orderId: string) => void;
  /**
   * A courier's route changed (docs/stream.md, `route`): a route made or an order inserted
   * (`dispatched`), a re-optimization applied, or one of its orders moved.
   */
  route?: (m: { id: string | null; courier: string; reason: string }) => void;
  courierLocation?: (p: { courier: string; lat: number; lng: number }) => void;
  /** `route_plan`: a plan's progress, or its end (docs/stream.md). */
  routePlan?: (m: { id: string; status?: string; progress?: number }) => void;
  /** `order_import`: an import's progress (docs/stream.md). */
  orderImport?: (m: { id: string; status?: string; processed_rows?: number; total_rows?: number }) => void;
  /** Called every few seconds when no stream is available (an API key in the tab, or no /v1/stream). */
  poll?: () => void;
  /**
   * `event: reset`: the stream, resuming after a disconnect, missed more than it can replay (an
   * hour away, or a burst like a large import): reload everything it was keeping current. Without
   * this handler, `poll` is called instead.
   */
  reset?: () => void;
  /**
   * The stream's first open. The stream starts at the moment it opens, and the page read its lists
   * before that: what changed in between (an order created while the page loaded) comes in no
   * event, so the page reads again once. Without this handler, `reset` (else `poll`) is called.
   * Not called again when EventSource reconnects: Last-Event-ID replays what the drop missed.
   */
  opened?: () => void;
}

/**
 * Whether this tab is on screen. Over HTTP/1.1 (plain http, `npm start`, a proxy that does not
 * speak HTTP/2 to browsers) a browser keeps at most six connections to one server, for all its
 * tabs, and each open stream holds one: a dispatcher's sixth console tab used to wait forever for
 * its first request. So a tab out of sight closes its streams, and opens them again, reading its
 * lists anew, when it is back on screen.
 */
export function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState !== 'hidden');
  useEffect(() => {
    const changed = () => setVisible(document.visibilityState !== 'hidden');
    document.addEventListener('visibilitychange', changed);
    // Hidden between the first render and now, the event came before the listener: read it again.
    changed();
    return () => document.removeEventListener('visibilitychange', changed);
  }, []);
  return visible;
}

/**
 * Live updates: the SSE stream at `stream` (from `streamable`) when the session can open one
 * (EventSource sends the cookie but no Authorization header), polling otherwise. Reconnection is
 * the browser's, and Last-Event-ID with it. A hidden tab holds no stream (usePageVisible); back on
 * screen, the new stream's first open reads the page's lists again (`opened`). A page calls it
 * once, with every handler it needs: each call holds a connection of the six HTTP/1.1 allows.
 */
export function useLive(enabled: boolean, stream: string | null, handlers: LiveHandlers, pollMs = POLL_MS): void {
  const h = useRef(handlers);
  h.current = handlers;
  const visible = usePageVisible();
  useEffect(() => {
    if (!enabled || (stream && !visible)) return;
    let timer: ReturnType<typeof setInterval> | undefined;
    let es: EventSource | undefined;
    const startPolling = () => {
      if (!timer) timer = setInterval(() => h.current.poll?.(), pollMs);
    };
    if (stream && typeof EventSource !== 'undefined') {
      es = new EventSource(stream, { withCredentials: true });
      let opened = false;
      es.onopen = () => {
        if (!opened) (h.current.opened ?? h.current.reset ?? h.current.poll)?.();
        opened = true;
      };
      es.onerror = () => {
        // Never opened: the server has no stream for us; poll instead of retrying forever.
        if (!opened) {
          es?.close();
          startPolling();
        }
      };
      es.addEventListener('order', (ev) => {
        try {
          const id = orderIdOf(JSON.parse((ev as MessageEvent<string>).data));
          if (id) h.current.order?.(id);
        } catch {}
      });
      es.addEventListener('route', (ev) => {
        try {
          const p = JSON.parse((ev as MessageEvent<string>).data) as Record<string, unknown>;
          const d = (p.data as Record<string, unknown> | undefined) ?? p;
          if (typeof d.courier === 'string') {
            h.current.route?.({ id: (d.id as string | null) ?? null, courier: d.courier, reason: String(d.reason) });
          }
        } catch {}
      });
      es.addEventListener('reset', () => (h.current.reset ?? h.current.poll)?.());
      es.addEventListener('route_plan', (ev) => {
        const m = idPayload(ev);
        if (m) h.current.routePlan?.(m);
      });
      es.addEventListener('order_import', (ev) => {
        const m = idPayload(ev);
        if (m) h.current.orderImport?.(m);
      });
      es.addEventListener('courier.location', (ev) => {
        try {
          const p = JSON.parse((ev as MessageEvent<string>).data) as Record<string, unknown>;
          const d = (p.data as Record<string, unknown> | undefined) ?? p;
          const courier = (d.courier ?? d.courier_id ?? d.id) as string;
          if (typeof d.lat === 'number' && typeof d.lng === 'number' && courier) {
            h.current.courierLocation?.({ courier, lat: d.lat, lng: d.lng });
          }
        } catch {}
      });
    } else {
      startPolling();
    }
    return () => {
      es?.close();
      if (timer) clearInterval(timer);
    };
  }, [enabled, stream, pollMs, visible]);
}

/** A `route_plan` or `order_import` message: the object itself, with its id (docs/stream.md). */
function idPayload(ev: Event): { id: string } | null {
  try {
    const m = JSON.parse((ev as MessageEvent<string>).data) as { id?: unknown } | null;
    return m && typeof m.id === 'string' ? (m as { id: string }) : null;
  } catch {
    return null;
  }
}

/**
 * A stable function that calls the latest `fn` once, `ms` after the first call of a burst: a burst
 * of stream events (an import, a plan's commit, a route of 30 stops) makes one read, and a long
 * burst one read every `ms`. (A debounce, which waits for a quiet moment, would show nothing until
 * a long burst ended.)
 */
export function useBatched(fn: () => void, ms: number): () => void {
  const latest = useRef(fn);
  latest.current = fn;
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
      timer.current = null;
    },
    [],
  );
  return useCallback(() => {
    timer.current ??= setTimeout(() => {
      timer.current = null;
      latest.current();
    }, ms);
  }, [ms]);
}
