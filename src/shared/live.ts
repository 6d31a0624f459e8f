import type { pino } from 'pino';
import type { Db, Engine } from './db/index.js';
import type { Mode } from './db/schema.js';
import { LIVE_CHANNEL, notify } from './live-repo.js';

/**
 * Live updates for `GET /v1/stream` (DESIGN §13) other than order events, which the stream reads
 * from the events table itself. A feature publishes; the stream hub of every instance fans out.
 */
export interface LiveData {
  'courier.location': { courier: string; lat: number; lng: number; recorded_at: string };
  route_plan: { id: string; status: string; progress: number } & Record<string, unknown>;
  order_import: { id: string; status: string; processed_rows: number; total_rows: number } & Record<string, unknown>;
  /**
   * A courier's route changed: a route made or an order inserted for it (`dispatched`), a
   * re-optimization applied, or one of its orders moved (`moved`; `id` null for an order assigned
   * without a route). Its phones read their stops again.
   */
  route: { id: string | null; courier: string; reason: 'dispatched' | 'reoptimized' | 'moved' };
}
export type LiveKind = keyof LiveData;
export const LIVE_KINDS: readonly LiveKind[] = ['courier.location', 'route_plan', 'order_import', 'route'];

/**
 * Who may see a message: its environment, the account whose object it is (null: the carrier's
 * own, e.g. a carrier courier, visible to operators only), and the courier it concerns if any (so a
 * courier session can be given only its own).
 */
export interface Audience {
  mode: Mode;
  accountId: string | null;
  courierId?: string | null;
}

export interface LiveMessage<K extends LiveKind = LiveKind> {
  kind: K;
  audience: Audience;
  data: LiveData[K];
}

/** At most one message per object per window; the newest of a window is sent when it ends. */
const THROTTLE_MS: Partial<Record<LiveKind, number>> = { 'courier.location': 1000 };

/** NOTIFY payloads are limited to 8000 bytes; a larger message stays on this instance. */
const MAX_NOTIFY_BYTES = 7900;

interface Throttled {
  lastSentAt: number;
  pending?: LiveMessage;
  timer?: NodeJS.Timeout;
}

/**
 * One per AppContext. On SQLite (one process) a message goes straight to this instance's
 * subscribers. On PostgreSQL it is sent with NOTIFY, and every instance whose stream hub LISTENs
 * (this one included) delivers it, so a stream on any instance sees publishes from all of them;
 * while this instance's hub is not listening, its own publishes are delivered locally as well.
 */
export class LiveBus {
  private readonly subscribers = new Set<(m: LiveMessage) => void>();
  private readonly throttled = new Map<string, Throttled>();
  /** Set by the stream hub while its LISTEN connection is up (PostgreSQL). */
  listening = false;
  private closed = false;

  constructor(private readonly o: { db: Db; engine: Engine; clock: () => number; logger: pino.Logger }) {}

  /** Publishes to every stream that may see `audience`; courier positions are throttled per courier. */
  publish<K extends LiveKind>(kind: K, audience: Audience, data: LiveData[K]): void {
    if (this.closed) return;
    const message = { kind, audience, data } as LiveMessage;
    const window = THROTTLE_MS[kind];
    if (window === undefined) {
      this.send(message);
      return;
    }
    const key = `${kind}:${'courier' in data ? data.courier : (data as { id: string }).id}`;
    const now = this.o.clock();
    const t = this.throttled.get(key);
    if (t === undefined || now - t.lastSentAt >= window) {
      if (t?.timer) clearTimeout(t.timer);
      this.throttled.set(key, { lastSentAt: now });
      this.send(message);
      return;
    }
    t.pending = message;
    // The window ends in real time: the newest position of the window is not lost.
    t.timer ??= setTimeout(
      () => {
        t.timer = undefined;
        const m = t.pending;
        t.pending = undefined;
        if (!m) return;
        t.lastSentAt = this.o.clock();
        this.send(m);
      },
      Math.max(1, window - (now - t.lastSentAt)),
    ).unref();
    // Forget couriers that went quiet, so the map stays as small as the active fleet.
    if (this.throttled.size > 10_000) this.prune(now, window);
  }

  subscribe(fn: (m: LiveMessage) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** Hands a message to this instance's subscribers (called by the LISTEN connection on PostgreSQL). */
  deliver(m: LiveMessage): void {
    for (const fn of this.subscribers) {
      try {
        fn(m);
      } catch (err) {
        this.o.logger.error({ err }, 'live: subscriber failed');
      }
    }
  }

  close(): void {
    this.closed = true;
    for (const t of this.throttled.values()) clearTimeout(t.timer);
    this.throttled.clear();
    this.subscribers.clear();
  }

  private send(m: LiveMessage): void {
    if (this.o.engine !== 'postgres') {
      this.deliver(m);
      return;
    }
    const text = JSON.stringify(m);
    if (!this.listening || Buffer.byteLength(text) > MAX_NOTIFY_BYTES) this.deliver(m);
    if (Buffer.byteLength(text) > MAX_NOTIFY_BYTES) return;
    notify(this.o.db, LIVE_CHANNEL, text).catch((err) => this.o.logger.warn({ err }, 'live: NOTIFY failed'));
  }

  private prune(now: number, window: number): void {
    for (const [k, t] of this.throttled) if (!t.timer && now - t.lastSentAt >= window) this.throttled.delete(k);
  }
}
