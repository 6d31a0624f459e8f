import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { instanceKey } from '../../shared/instance.js';
import type { LiveMessage } from '../../shared/live.js';
import { pointOf } from '../dispatch/eta.js';
import type { Lang } from './i18n/index.js';
import { StreamCaps } from './live-caps.js';
import { EN_ROUTE, frameOf, type RouteStop, type State, stateOf, stopsAhead, type WatchedOrder } from './live-state.js';
import * as repo from './public-repo.js';

/** A courier's position reaches a tracking page at most this often (DESIGN §15). */
export const POSITION_EVERY_MS = 5000;
const CHUNK = 500;

/**
 * Where a stream's frames go: the HTTP response itself (`reply.raw`, the route hijacks the reply).
 * Not a Readable piped to it: ten thousand open pages would each hold the Readable's state and the
 * pipe's and Fastify's end-of-stream listeners on both sides: 6.9 of the 16.1 KB a stream held
 * (BENCHMARKS.md, "10 000 tracking streams within 400 MB").
 */
export interface FrameSink {
  write(chunk: string): boolean;
  end(): void;
  destroy(): void;
  readonly writableLength: number;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  once(event: 'close', listener: () => void): unknown;
}

interface Conn {
  /** Null until the order has been read and the response started. */
  out: FrameSink | null;
  lang: Lang;
  code: string;
  client: string;
}

/** One watched order: what its pages are told, kept current by the refresh and the LiveBus. */
interface Watched extends WatchedOrder {
  id: string;
  routeId: string | null;
  /** The address as read, so a refresh parses it again only when it changed. */
  destRaw: string;
  conns: Set<Conn>;
  lastPositionAt: number;
  positionTimer?: NodeJS.Timeout;
  /** The last frame sent per language, so an unchanged state is not sent again. */
  sent: Map<Lang, string>;
  /** The key of the last state sent (its `State` before words), so a refresh that changed nothing builds no frame. */
  sentState: string;
}

/**
 * The open `/track/{code}/events` streams of this instance. Unlike `/v1/stream` (every event of
 * an account), each stream follows one order and is told only what its page shows: status and
 * revision (the page re-reads itself when they change), the arrival window, the stops before it,
 * and the courier's position while it is on its way there. Positions come from the LiveBus as the
 * courier reports them; everything else from one batched read of the watched orders every
 * `RUTA_TRACK_REFRESH_MS` (which also brings other instances' positions and moves).
 */
export class TrackingHub {
  private readonly orders = new Map<string, Watched>();
  private readonly byCourier = new Map<string, Set<string>>();
  private readonly caps: StreamCaps;
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private refreshing?: Promise<void>;
  private closed = false;
  /** Frames built so far: what an unchanged refresh must not add to (tests). */
  framesBuilt = 0;

  constructor(private readonly ctx: AppContext) {
    this.caps = new StreamCaps(ctx.config.trackStreamsPerClient);
  }

  get size(): number {
    let n = 0;
    for (const w of this.orders.values()) n += w.conns.size;
    return n;
  }

  /**
   * Opens a stream on the order: checks the caps (an ApiError, before anything is written), reads
   * the order, then calls `start` for the response (headers written) and sends the first state.
   */
  async open(row: repo.PublicOrderRow, lang: Lang, client: string, start: () => FrameSink): Promise<void> {
    if (this.closed) throw new ApiError('service_unavailable', 'The server is shutting down; reconnect.');
    const code = row.tracking_code;
    this.caps.take(code, client);
    const conn: Conn = { out: null, lang, code, client };
    let w = this.orders.get(row.id);
    if (!w) {
      w = {
        id: row.id,
        status: row.status,
        rev: row.event_seq,
        courierId: null,
        routeId: row.route_id,
        dest: pointOf(row.delivery_address),
        destRaw: '',
        tz: row.timezone,
        ahead: null,
        courier: null,
        conns: new Set(),
        lastPositionAt: 0,
        sent: new Map(),
        sentState: '',
      };
      this.orders.set(row.id, w);
      this.setCourier(w, row.courier_id);
    }
    w.conns.add(conn);
    const watched = w;
    this.start();
    try {
      await this.read([row.id]);
    } catch (err) {
      this.ctx.logger.warn({ err }, 'tracking stream: first read failed; the refresh retries');
    }
    if (this.closed) {
      this.release(watched, conn);
      throw new ApiError('service_unavailable', 'The server is shutting down; reconnect.');
    }
    let out: FrameSink;
    try {
      out = start();
    } catch (err) {
      this.release(watched, conn);
      throw err;
    }
    conn.out = out;
    out.once('close', () => this.release(watched, conn));
    // A client that left during the read: its response has already closed, and says so only now.
    if (out.destroyed) return this.release(watched, conn);
    this.write(conn, `retry: 5000\n\n${this.render(stateOf(this.ctx, watched), lang)}`);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
    for (const w of this.orders.values()) {
      clearTimeout(w.positionTimer);
      for (const c of w.conns) if (c.out && !c.out.destroyed) c.out.end();
    }
    this.orders.clear();
    this.byCourier.clear();
  }

  /** Waits for a refresh in flight, then runs one (tests; the timer runs them otherwise). */
  async refresh(): Promise<void> {
    await this.refreshing;
    await this.tick();
  }

  private start(): void {
    if (this.timer) return;
    this.unsubscribe = this.ctx.live.subscribe((m) => this.onLive(m));
    this.timer = setInterval(() => void this.tick(), this.ctx.config.trackRefreshMs).unref();
  }

  private tick(): Promise<void> {
    this.refreshing ??= this.read([...this.orders.keys()])
      .catch((err) => this.ctx.logger.error({ err }, 'tracking streams: refresh failed'))
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  private release(w: Watched, c: Conn): void {
    if (!w.conns.delete(c)) return;
    this.caps.give(c.code, c.client);
    if (w.conns.size > 0) return;
    clearTimeout(w.positionTimer);
    this.orders.delete(w.id);
    this.setCourier(w, null);
  }

  private setCourier(w: Watched, courierId: string | null): void {
    if (w.courierId === courierId) return;
    if (w.courierId) {
      const set = this.byCourier.get(w.courierId);
      set?.delete(w.id);
      if (set?.size === 0) this.byCourier.delete(w.courierId);
    }
    w.courierId = courierId;
    w.courier = null;
    if (courierId) {
      const set = this.byCourier.get(courierId) ?? new Set<string>();
      this.byCourier.set(courierId, set);
      set.add(w.id);
    }
  }

  /** Re-reads the given orders, their routes' stops and their couriers' positions, in chunks; sends what changed. */
  private async read(ids: string[]): Promise<void> {
    const db = this.ctx.db;
    const touched: Watched[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      for (const r of await repo.watchedOrders(db, ids.slice(i, i + CHUNK))) {
        const w = this.orders.get(r.id);
        if (!w) continue;
        w.status = r.status;
        w.rev = r.event_seq;
        w.routeId = r.route_id;
        w.tz = r.timezone;
        if (r.delivery_address !== w.destRaw) {
          w.destRaw = r.delivery_address;
          w.dest = pointOf(JSON.parse(r.delivery_address));
        }
        this.setCourier(w, r.courier_id);
        touched.push(w);
      }
    }
    const live = touched.filter((w) => EN_ROUTE.has(w.status) && w.courierId);
    const routes = [...new Set(live.map((w) => w.routeId).filter((r): r is string => r !== null))];
    const stops = new Map<string, RouteStop[]>();
    for (let i = 0; i < routes.length; i += CHUNK) {
      for (const s of await repo.stopsOfRoutes(db, routes.slice(i, i + CHUNK))) {
        const list = stops.get(s.route_id) ?? [];
        stops.set(s.route_id, list);
        list.push({
          order: s.order_id,
          status: s.status,
          route: s.order_route,
          at: pointOf(JSON.parse(s.delivery_address)),
        });
      }
    }
    for (const w of live) {
      w.ahead = stopsAhead(w.routeId ? (stops.get(w.routeId) ?? []) : [], w.id, w.routeId);
    }
    const couriers = [...new Set(live.map((w) => w.courierId as string))];
    for (let i = 0; i < couriers.length; i += CHUNK) {
      for (const c of await repo.courierPositions(db, couriers.slice(i, i + CHUNK))) {
        if (c.last_lat === null || c.last_lng === null) continue;
        for (const id of this.byCourier.get(c.id) ?? []) {
          const w = this.orders.get(id);
          if (w) w.courier = { lat: c.last_lat, lng: c.last_lng };
        }
      }
    }
    for (const w of touched) this.send(w);
  }

  private onLive(m: LiveMessage): void {
    if (m.kind !== 'courier.location') return;
    const d = m.data as LiveMessage<'courier.location'>['data'];
    const ids = this.byCourier.get(d.courier);
    if (!ids) return;
    for (const id of ids) {
      const w = this.orders.get(id);
      if (!w) continue;
      w.courier = { lat: d.lat, lng: d.lng };
      this.sendPosition(w);
    }
  }

  /** At most one position per POSITION_EVERY_MS per order; the newest of a window goes when it ends. */
  private sendPosition(w: Watched): void {
    if (w.positionTimer) return;
    const wait = w.lastPositionAt + POSITION_EVERY_MS - this.ctx.clock();
    if (wait <= 0) {
      w.lastPositionAt = this.ctx.clock();
      this.send(w);
      return;
    }
    w.positionTimer = setTimeout(() => {
      w.positionTimer = undefined;
      w.lastPositionAt = this.ctx.clock();
      this.send(w);
    }, wait).unref();
  }

  private send(w: Watched): void {
    const state = stateOf(this.ctx, w);
    const key = JSON.stringify(state);
    if (key === w.sentState) return;
    w.sentState = key;
    const byLang = new Map<Lang, string>();
    for (const c of w.conns) {
      let f = byLang.get(c.lang);
      if (f === undefined) {
        f = this.render(state, c.lang);
        byLang.set(c.lang, f);
      }
      if (w.sent.get(c.lang) === f) continue;
      this.write(c, f);
    }
    for (const [lang, f] of byLang) w.sent.set(lang, f);
  }

  private render(s: State, lang: Lang): string {
    this.framesBuilt++;
    return frameOf(s, lang);
  }

  private write(c: Conn, frame: string): void {
    const out = c.out;
    // Not started yet (its first frame, written at the start, will be current), or already ended.
    if (this.closed || !out || out.destroyed || out.writableEnded) return;
    out.write(frame);
    // A page this far behind is cut off; it reconnects (EventSource) or polls.
    if (out.writableLength > 64 * 1024) out.destroy();
  }
}

export const TRACKING_HUB = instanceKey('tracking', (ctx: AppContext) => new TrackingHub(ctx));
