import { PassThrough } from 'node:stream';
import pg from 'pg';
import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { newId, randomToken } from '../../shared/ids.js';
import { instanceKey } from '../../shared/instance.js';
import type { LiveMessage } from '../../shared/live.js';
import { LIVE_CHANNEL } from '../../shared/live-repo.js';
import { frameOf, type Held, isOpen, type Stream, write } from './conn.js';
import { heldMax, type ReplayHost, replay } from './replay.js';
import * as repo from './repo.js';
import { orderAudience, visibleTo } from './scope.js';

const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
/** SQLite: commits of other processes (the CLI) are found by this poll; this instance's own wake it at once. */
const TAIL_POLL_MS = 1000;
const PAGE = 500;
/** A `ruta_events` payload that is a replay's hand-over marker, not event ids (`caughtUp`). */
const MARKER = 'marker:';

/**
 * The instance's open `/v1/stream` connections and what feeds them: order events from the events
 * table (PostgreSQL: LISTEN ruta_events, filled by a trigger at commit, so commits on any
 * instance arrive; SQLite: the table is tailed by rowid, woken by this instance's own writes),
 * and the LiveBus (courier positions, plan and import progress; on PostgreSQL over LISTEN
 * ruta_live). Each message is checked with `visibleTo` against each stream's scope. A stream
 * resumed with Last-Event-ID is first sent its backlog (`replay.ts`), after the response started.
 */
export class StreamHub {
  private readonly streams = new Set<Stream>();
  private readonly perKey = new Map<string, number>();
  private started?: Promise<void>;
  private closed = false;
  private heartbeat?: NodeJS.Timeout;
  private poller?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private listener?: pg.Client;
  private tailRowid = 0;
  private tailing?: Promise<void>;
  private tailAgain = false;
  private fetchIds: string[] = [];
  private fetching: Promise<void> = Promise.resolve();
  /** PostgreSQL: replays waiting for their marker to come back on the LISTEN connection. */
  private readonly markers = new Map<string, () => void>();
  private readonly replays = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private readonly host: ReplayHost;

  constructor(private readonly ctx: AppContext) {
    this.host = { ctx, stop: this.stop.signal, caughtUp: () => this.caughtUp() };
  }

  get size(): number {
    return this.streams.size;
  }

  /** Opens a stream for `scope`; replays from `lastEventId` first when it names a recent event. */
  async open(scope: Scope, key: string, lastEventId: string | undefined): Promise<PassThrough> {
    if (this.closed) throw new ApiError('service_unavailable', 'The server is shutting down; reconnect.');
    const max = this.ctx.config.streamMaxPerKey;
    if ((this.perKey.get(key) ?? 0) >= max) {
      throw new ApiError(
        'rate_limited',
        `Too many open streams for this key (at most ${max}); close one first.`,
        undefined,
        { 'Retry-After': '5' },
      );
    }
    this.perKey.set(key, (this.perKey.get(key) ?? 0) + 1);
    // 16 KiB of buffer each way, set here rather than left to Node (16 KiB up to Node 20, 64 KiB from
    // 22): how far a replay runs ahead of a client that does not read is the same on every runtime.
    const out = new PassThrough({ highWaterMark: 16 * 1024 });
    const resume = lastEventId !== undefined && EVENT_ID.test(lastEventId) ? lastEventId : undefined;
    const s: Stream = { scope, key, out, cursor: resume ?? newId('evt', this.ctx.clock()) };
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.streams.delete(s);
      const n = (this.perKey.get(key) ?? 1) - 1;
      if (n <= 0) this.perKey.delete(key);
      else this.perKey.set(key, n);
    };
    out.on('close', release);
    try {
      await this.start();
      if (resume) s.held = [];
      this.streams.add(s);
      // `retry` sets the browser's reconnect delay; an `id` alone sets its Last-Event-ID without an event.
      out.write(`retry: 2000\nid: ${s.cursor}\n\n`);
    } catch (err) {
      release();
      out.destroy();
      throw err;
    }
    // Not awaited: the backlog is written at the client's pace once the response pipes the stream.
    if (resume) this.track(s, replay(this.host, s, resume));
    return out;
  }

  /** Wakes the SQLite tail: this instance has just committed something. */
  nudge(): void {
    if (this.ctx.engine === 'sqlite' && this.streams.size > 0 && !this.closed) void this.tail();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stop.abort();
    this.releaseMarkers();
    clearInterval(this.heartbeat);
    clearInterval(this.poller);
    this.unsubscribe?.();
    this.ctx.live.listening = false;
    for (const s of this.streams) s.out.end();
    this.streams.clear();
    const l = this.listener;
    this.listener = undefined;
    await l?.end().catch(() => {});
    await this.tailing;
    await this.fetching;
    // Their last statements finish before the database closes.
    await Promise.allSettled([...this.replays]);
  }

  private track(s: Stream, p: Promise<void>): void {
    const run = p
      .catch((err) => {
        if (!this.closed) this.ctx.logger.error({ err }, 'stream: replay failed; the client resumes');
        s.out.end();
      })
      .finally(() => this.replays.delete(run));
    this.replays.add(run);
  }

  /**
   * The replay's hand-over: resolves once every event committed before the call has been given to
   * the streams. SQLite: one more pass of the tail. PostgreSQL: a marker NOTIFY on ruta_events;
   * notifications arrive in commit order, so when it comes back the earlier ones have been read.
   */
  private caughtUp(): Promise<void> {
    if (this.ctx.engine !== 'postgres') return this.tail();
    if (this.listener === undefined || this.closed) return Promise.resolve();
    const token = `${MARKER}${randomToken(16)}`;
    return new Promise<void>((resolve, reject) => {
      this.markers.set(token, resolve);
      repo.notifyMarker(this.ctx.db, token).catch((err) => {
        this.markers.delete(token);
        reject(err);
      });
    });
  }

  private releaseMarkers(): void {
    for (const done of this.markers.values()) done();
    this.markers.clear();
  }

  private start(): Promise<void> {
    this.started ??= this.begin().catch((err) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  private async begin(): Promise<void> {
    this.unsubscribe = this.ctx.live.subscribe((m) => this.sendLive(m));
    this.heartbeat = setInterval(() => this.beat(), this.ctx.config.streamHeartbeatMs).unref();
    if (this.ctx.engine === 'postgres') await this.listen();
    else {
      this.tailRowid = await repo.lastRowid(this.ctx.db);
      this.poller = setInterval(() => this.nudge(), TAIL_POLL_MS).unref();
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.ctx.config.databaseUrl });
    client.on('notification', (n) => {
      if (n.channel === 'ruta_events') this.fetch(n.payload?.split(',') ?? []);
      else if (n.channel === LIVE_CHANNEL && n.payload) this.ctx.live.deliver(JSON.parse(n.payload) as LiveMessage);
    });
    client.on('error', (err) => {
      if (this.listener !== client) return;
      this.ctx.logger.warn({ err }, 'stream: LISTEN connection lost; streams reconnect and resume');
      this.listener = undefined;
      this.ctx.live.listening = false;
      this.started = undefined;
      clearInterval(this.heartbeat);
      this.unsubscribe?.();
      this.releaseMarkers();
      // Whatever committed meanwhile is replayed from the table when the clients come back (Last-Event-ID).
      for (const s of this.streams) s.out.end();
      void client.end().catch(() => {});
    });
    await client.connect();
    await client.query(`LISTEN ruta_events; LISTEN ${LIVE_CHANNEL}`);
    if (this.closed) {
      await client.end();
      return;
    }
    this.listener = client;
    this.ctx.live.listening = true;
  }

  /** PostgreSQL: reads the events a NOTIFY named, a batch per turn of the event loop, in order. */
  private fetch(ids: string[]): void {
    if (this.fetchIds.push(...ids) !== ids.length) return;
    this.fetching = this.fetching.then(async () => {
      const batch = this.fetchIds;
      this.fetchIds = [];
      const events = batch.filter((id) => !id.startsWith(MARKER));
      try {
        if (!this.closed && this.streams.size > 0 && events.length > 0) {
          for (const e of await repo.eventsByIds(this.ctx.db, events)) this.sendOrder(e);
        }
      } catch (err) {
        this.ctx.logger.error({ err }, 'stream: reading notified events failed');
      }
      // After the events notified before them (other instances' markers are not in the map).
      for (const id of batch) {
        if (!id.startsWith(MARKER)) continue;
        this.markers.get(id)?.();
        this.markers.delete(id);
      }
    });
  }

  /** SQLite: reads what was committed since the last look; one reader at a time, again if woken meanwhile. */
  private tail(): Promise<void> {
    if (this.tailing) {
      this.tailAgain = true;
      return this.tailing;
    }
    this.tailing = (async () => {
      try {
        do {
          this.tailAgain = false;
          let rows: Awaited<ReturnType<typeof repo.eventsAfterRowid>>;
          do {
            rows = await repo.eventsAfterRowid(this.ctx.db, this.tailRowid, PAGE);
            for (const e of rows) {
              this.tailRowid = e.rowid;
              this.sendOrder(e);
            }
          } while (rows.length === PAGE && !this.closed);
        } while (this.tailAgain && !this.closed);
      } catch (err) {
        if (!this.closed) this.ctx.logger.error({ err }, 'stream: reading new events failed');
      } finally {
        this.tailing = undefined;
      }
    })();
    return this.tailing;
  }

  private sendOrder(e: repo.StreamEvent): void {
    const audience = orderAudience(e);
    for (const s of this.streams) if (visibleTo(s.scope, audience)) this.deliver(s, { order: e });
  }

  private sendLive(m: LiveMessage): void {
    const data = JSON.stringify(m.data);
    for (const s of this.streams) if (visibleTo(s.scope, m.audience)) this.deliver(s, { live: m.kind, data });
  }

  /** Now, or after the backlog while the stream replays (`heldMax` at most; more ends it in a reset). */
  private deliver(s: Stream, h: Held): void {
    if (!isOpen(s)) return;
    if (s.held) {
      if ('order' in h && s.replayed?.has(h.order.id)) return;
      if (s.held.length < heldMax(this.ctx)) s.held.push(h);
      else s.overflow = true;
      return;
    }
    write(s, frameOf(s, h), this.ctx.logger);
  }

  private beat(): void {
    for (const s of this.streams) write(s, ': heartbeat\n\n', this.ctx.logger);
  }
}

export const STREAM_HUB = instanceKey('stream', (ctx: AppContext) => new StreamHub(ctx));
