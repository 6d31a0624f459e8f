import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { instanceKey } from '../../shared/instance.js';
import { iso } from '../../shared/time.js';
import { type CourierBatch, writeBatches } from './location-repo.js';
import * as repo from './repo.js';

export interface Point {
  lat: number;
  lng: number;
  recordedAt: number;
}

interface Queued extends Point {
  courierId: string;
  at: number;
}

/** How long a courier row read for a ping is trusted (its scope never changes; its name may, elsewhere). */
const COURIER_CACHE_MS = 5000;
/** Past this many waiting points a ping waits for the flush in progress, so memory stays bounded. */
const MAX_QUEUED = 100_000;

/**
 * Location pings are acknowledged from memory and written in batches (issue 13 §2): a ping costs
 * a lookup and a push; every `locationFlushMs` one flush writes the newest position of each courier
 * and all points to the history (location-repo.ts). Acknowledged points survive a graceful shutdown
 * (close() flushes, and app.close() waits for requests first); a crash loses at most one interval.
 *
 * Reads see acknowledged points: `overlay` lays the waiting newest position over a row read from
 * the database (another instance's waiting points show once flushed, within the interval); the
 * history is flushed before it is read.
 */
export class LocationWriter {
  private queue: Queued[] = [];
  /** Newest waiting position per courier: in `queue`, and in the flush being written. */
  private waiting = new Map<string, Point & { at: number }>();
  private writing = new Map<string, Point & { at: number }>();
  private readonly couriers = new Map<string, { row: repo.CourierRow; loadedAt: number }>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly ctx: AppContext) {}

  /** The courier, if `scope` may see it, from a short-lived cache with this instance's own pings applied. */
  async courier(scope: Scope, id: string): Promise<repo.CourierRow> {
    const now = this.ctx.clock();
    let c = this.couriers.get(id);
    if (c === undefined || now - c.loadedAt > COURIER_CACHE_MS || now < c.loadedAt) {
      const row = await repo.courierById(this.ctx.db, id);
      if (row === undefined) throw notFound('courier', id);
      c = { row: this.overlay(row), loadedAt: now };
      if (this.couriers.size > 50_000) this.couriers.clear();
      this.couriers.set(id, c);
    }
    const row = c.row;
    // The same rule as the repositories' WHERE: one environment, the caller's account, and a
    // courier session only its own courier.
    if (
      row.mode !== scope.mode ||
      (scope.accountId !== null && row.account_id !== scope.accountId) ||
      (scope.courierId !== undefined && row.id !== scope.courierId)
    ) {
      throw notFound('courier', id);
    }
    return row;
  }

  /** A courier was changed through the API: read it afresh next time. */
  forget(id: string): void {
    this.couriers.delete(id);
  }

  /**
   * Accepts points (oldest first) for a courier already checked by `courier()`, and answers the
   * courier as it now stands. Publishes the new position on the live stream when it moved.
   */
  async add(courier: repo.CourierRow, points: Point[]): Promise<repo.CourierRow> {
    const at = this.ctx.clock();
    const id = courier.id;
    let newest: Point | undefined;
    for (const p of points) {
      this.queue.push({ courierId: id, lat: p.lat, lng: p.lng, recordedAt: p.recordedAt, at });
      if (newest === undefined || p.recordedAt >= newest.recordedAt) newest = p;
    }
    const moves =
      newest !== undefined && (courier.last_recorded_at === null || newest.recordedAt >= courier.last_recorded_at);
    if (moves && newest) {
      const w = this.waiting.get(id);
      if (w === undefined || newest.recordedAt >= w.recordedAt) this.waiting.set(id, { ...newest, at });
      // The cached row is what the next ping of this courier answers with.
      courier.last_lat = newest.lat;
      courier.last_lng = newest.lng;
      courier.last_recorded_at = newest.recordedAt;
      courier.updated_at = Math.max(courier.updated_at, at);
      this.ctx.live.publish(
        'courier.location',
        { mode: courier.mode, accountId: courier.account_id, courierId: id },
        { courier: id, lat: newest.lat, lng: newest.lng, recorded_at: iso(newest.recordedAt) },
      );
    }
    if (this.closed) await this.flush();
    else if (this.queue.length >= MAX_QUEUED) await this.flush();
    else this.schedule();
    return { ...courier };
  }

  /** `row` (read from the database) with this instance's newer waiting position laid over it. */
  overlay(row: repo.CourierRow): repo.CourierRow {
    const a = this.waiting.get(row.id);
    const b = this.writing.get(row.id);
    const p = a && b ? (a.recordedAt >= b.recordedAt ? a : b) : (a ?? b);
    if (!p || (row.last_recorded_at !== null && p.recordedAt < row.last_recorded_at)) return row;
    return {
      ...row,
      last_lat: p.lat,
      last_lng: p.lng,
      last_recorded_at: p.recordedAt,
      updated_at: Math.max(row.updated_at, p.at),
    };
  }

  /** Writes everything acknowledged so far (waits for a flush already running, then writes the rest). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue;
    this.queue = [];
    this.writing = this.waiting;
    this.waiting = new Map();
    this.flushing = writeBatches(this.ctx.db, this.ctx.engine, group(batch))
      .catch((err) => {
        // Kept, in front of what arrived since, for the next flush.
        this.ctx.logger.error({ err, points: batch.length }, 'location flush failed; retrying');
        this.queue = batch.concat(this.queue);
        for (const [k, v] of this.writing) {
          const w = this.waiting.get(k);
          if (w === undefined || v.recordedAt > w.recordedAt) this.waiting.set(k, v);
        }
        if (this.closed) throw err;
      })
      .finally(() => {
        this.writing = new Map();
        this.flushing = undefined;
        if (!this.closed) this.schedule();
      });
    await this.flushing;
  }

  /** Flushes and from then on writes each ping before acknowledging it (requests still draining). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private schedule(): void {
    if (this.timer || this.flushing || this.queue.length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => {});
    }, this.ctx.config.locationFlushMs);
  }
}

/** Points by courier, each courier's in arrival order. */
function group(points: Queued[]): CourierBatch[] {
  const by = new Map<string, CourierBatch>();
  for (const q of points) {
    const p = { lat: q.lat, lng: q.lng, recordedAt: q.recordedAt };
    const b = by.get(q.courierId);
    if (b === undefined) by.set(q.courierId, { courierId: q.courierId, points: [p], newest: p, at: q.at });
    else {
      b.points.push(p);
      if (p.recordedAt >= b.newest.recordedAt) b.newest = p;
      b.at = Math.max(b.at, q.at);
    }
  }
  return [...by.values()];
}

/** This instance's writer (created on the first ping, flushed and closed with the app). */
export const LOCATIONS = instanceKey('locations', (ctx: AppContext) => new LocationWriter(ctx));

/** Lays this instance's acknowledged but unwritten position over a courier row read from the database. */
export function withPending(ctx: AppContext): (row: repo.CourierRow) => repo.CourierRow {
  const w = ctx.instance.peek(LOCATIONS);
  return w ? (row) => w.overlay(row) : (row) => row;
}
