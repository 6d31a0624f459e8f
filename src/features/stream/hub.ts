import { PassThrough } from 'node:stream';
import pg from 'pg';
import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { instanceKey } from '../../shared/instance.js';
import type { Audience, LiveMessage } from '../../shared/live.js';
import { LIVE_CHANNEL } from '../../shared/live-repo.js';
import * as repo from './repo.js';
import { visibleTo } from './scope.js';

/** Last-Event-ID reaches back this far; older events are not replayed (DESIGN §13). */
export const RESUME_WINDOW_MS = 3600_000;
const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
/** A client this far behind is cut off; it reconnects with Last-Event-ID and catches up from the table. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** SQLite: commits of other processes (the CLI) are found by this poll; this instance's own wake it at once. */
const TAIL_POLL_MS = 1000;
const PAGE = 500;

interface Stream {
  scope: Scope;
  key: string;
  out: PassThrough;
  /** The last order event sent (or the position when the stream opened): every message's `id:`. */
  cursor: string;
  /** While replaying, live order events wait here. */
  held?: repo.StreamEvent[];
}

/**
 * The instance's open `/v1/stream` connections and what feeds them: order events from the events
 * table (PostgreSQL: LISTEN ruta_events, filled by a trigger at commit, so commits on any
 * instance arrive; SQLite: the table is tailed by rowid, woken by this instance's own writes),
 * and the LiveBus (courier positions, plan and import progress; on PostgreSQL over LISTEN
 * ruta_live). Each message is checked with `visibleTo` against each stream's scope.
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

  constructor(private readonly ctx: AppContext) {}

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
    const out = new PassThrough();
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
      if (resume) await this.replay(s, resume);
    } catch (err) {
      release();
      out.destroy();
      throw err;
    }
    return out;
  }

  /** Wakes the SQLite tail: this instance has just committed something. */
  nudge(): void {
    if (this.ctx.engine === 'sqlite' && this.streams.size > 0 && !this.closed) void this.tail();
  }

  async close(): Promise<void> {
    this.closed = true;
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
      if (this.closed || this.streams.size === 0) return;
      try {
        for (const e of await repo.eventsByIds(this.ctx.db, batch)) this.sendOrder(e);
      } catch (err) {
        this.ctx.logger.error({ err }, 'stream: reading notified events failed');
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

  private async replay(s: Stream, after: string): Promise<void> {
    const since = this.ctx.clock() - RESUME_WINDOW_MS;
    const sent = new Set<string>();
    let cursor = after;
    for (;;) {
      const page = await repo.eventsAfter(this.ctx.db, s.scope, { afterId: cursor, since, limit: PAGE });
      for (const e of page) {
        this.write(s, orderFrame(e));
        s.cursor = e.id;
        sent.add(e.id);
      }
      const last = page.at(-1);
      if (page.length < PAGE || last === undefined) break;
      cursor = last.id;
    }
    const held = s.held ?? [];
    s.held = undefined;
    for (const e of held) if (!sent.has(e.id)) this.deliverOrder(s, e);
  }

  private sendOrder(e: repo.StreamEvent): void {
    const audience: Audience = { mode: e.mode, accountId: e.account_id };
    for (const s of this.streams) {
      if (!visibleTo(s.scope, audience)) continue;
      if (s.held) s.held.push(e);
      else this.deliverOrder(s, e);
    }
  }

  private deliverOrder(s: Stream, e: repo.StreamEvent): void {
    s.cursor = e.id;
    this.write(s, orderFrame(e));
  }

  private sendLive(m: LiveMessage): void {
    const data = JSON.stringify(m.data);
    for (const s of this.streams) {
      if (visibleTo(s.scope, m.audience)) this.write(s, `id: ${s.cursor}\nevent: ${m.kind}\ndata: ${data}\n\n`);
    }
  }

  private beat(): void {
    for (const s of this.streams) this.write(s, ': heartbeat\n\n');
  }

  private write(s: Stream, frame: string): void {
    if (s.out.destroyed || s.out.writableEnded) return;
    s.out.write(frame);
    if (s.out.writableLength + s.out.readableLength > MAX_BUFFERED_BYTES) {
      this.ctx.logger.warn({ key: s.key }, 'stream: client too slow; closed so it resumes from the table');
      s.out.destroy();
    }
  }
}

function orderFrame(e: repo.StreamEvent): string {
  return `id: ${e.id}\nevent: order\ndata: ${e.payload}\n\n`;
}

export const STREAM_HUB = instanceKey('stream', (ctx: AppContext) => new StreamHub(ctx));
