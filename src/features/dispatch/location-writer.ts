import { Histogram } from 'prom-client';
import type { Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { instanceKey } from '../../shared/instance.js';
import { metricOn } from '../../shared/metrics.js';
import { iso } from '../../shared/time.js';
import { type CourierBatch, writeBatches } from './location-repo.js';
import * as repo from './repo.js';

export interface Point {
  lat: number;
  lng: number;
  recordedAt: number;
}

/** One request's points, waiting for the commit that holds them. */
interface Waiting {
  courierId: string;
  points: Point[];
  at: number;
  resolve: (row: repo.CourierRow) => void;
  reject: (err: unknown) => void;
}

/** How long a courier row read for a ping is reused (only its scope and creation time are read, which never change). */
const COURIER_CACHE_MS = 5000;
/** A commit never carries more points than this (a hundred full batches); the rest go in the next. */
const MAX_POINTS = 10_000;

/**
 * Group commit for location pings (issue 18, defect 11): a 2xx means the points are in the
 * database. An answer from memory, written a moment later, was lost whole by a kill -9, and the
 * phone had already dropped the points it had been told were kept.
 *
 * The pings that reach this point in one turn of the event loop are written together at its end
 * (`setImmediate`), and those that arrive meanwhile in the next commit, as for order creates
 * (orders/create-writer.ts). Nothing waits on a timer: an idle server writes each ping at once,
 * alone; under load many requests share a commit, so the commit is paid per turn, not per ping.
 * One commit at a time on either engine: the next one then takes everything that queued during it,
 * a courier's points keep their arrival order in its history, and commits of one instance never
 * wait on each other's row locks. (Four in flight on PostgreSQL, as creates do, measured a third
 * to a half of the single-ping rate of one: BENCHMARKS.md, "Durable location pings".)
 *
 * A failed commit is written again request by request, so a request whose points cannot be written
 * fails alone (5xx: the phone keeps its points and sends them again) and the others still succeed.
 */
export class LocationWriter {
  private queue: Waiting[] = [];
  private writing = false;
  private scheduled = false;
  private idle: (() => void)[] = [];
  private readonly couriers = new Map<string, { row: repo.CourierRow; loadedAt: number }>();
  /** Requests per commit: 1 when idle, more under load (how operators see the grouping work). */
  private readonly commitSize: Histogram;

  constructor(private readonly ctx: AppContext) {
    const name = 'ruta_location_commit_size';
    this.commitSize = metricOn(
      ctx.metrics,
      name,
      () =>
        new Histogram({
          name,
          help: 'Location requests written per commit (POST /v1/couriers/{id}/location and …/locations, grouped under load)',
          buckets: [1, 2, 4, 8, 16, 32, 64, 128],
          registers: [ctx.metrics],
        }),
    );
  }

  /**
   * The courier, if `scope` may see it, from a short-lived cache: only its scope (environment,
   * account, id, which never change) and `created_at` are used from it, never its position.
   */
  async courier(scope: Scope, id: string): Promise<repo.CourierRow> {
    const now = this.ctx.clock();
    let c = this.couriers.get(id);
    if (c === undefined || now - c.loadedAt > COURIER_CACHE_MS || now < c.loadedAt) {
      const row = await repo.courierById(this.ctx.db, id);
      if (row === undefined) throw notFound('courier', id);
      c = { row, loadedAt: now };
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
   * Writes points (oldest first) of a courier already checked by `courier()`, and resolves, once
   * they are committed, with the courier as it stands after that commit.
   */
  add(courier: repo.CourierRow, points: Point[]): Promise<repo.CourierRow> {
    return new Promise((resolve, reject) => {
      this.queue.push({ courierId: courier.id, points, at: this.ctx.clock(), resolve, reject });
      if (this.scheduled || this.writing) return;
      this.scheduled = true;
      // After the poll phase: every request read in this turn of the loop has queued by then.
      setImmediate(() => {
        this.scheduled = false;
        void this.pump();
      });
    });
  }

  private async pump(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    while (this.queue.length > 0) {
      let n = 0;
      let take = 0;
      while (take < this.queue.length && (take === 0 || n + this.queue[take]!.points.length <= MAX_POINTS)) {
        n += this.queue[take]!.points.length;
        take++;
      }
      const group = this.queue.splice(0, take);
      // commit() settles every request itself; this is for what it did not foresee (settling twice is a no-op).
      await this.commit(group).catch((err) => {
        for (const w of group) w.reject(err);
      });
    }
    this.writing = false;
    for (const done of this.idle.splice(0)) done();
  }

  private async commit(group: Waiting[]): Promise<void> {
    const batches = batchesOf(group);
    let rows: repo.CourierRow[];
    try {
      rows = await writeBatches(this.ctx.db, this.ctx.engine, batches);
    } catch (err) {
      if (group.length === 1) return group[0]!.reject(err);
      // Which request's points failed is unknown: each is written alone, and answers for itself.
      for (const w of group) await this.commit([w]);
      return;
    }
    this.commitSize.observe(group.length);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const w of group) {
      const row = byId.get(w.courierId);
      if (row === undefined) w.reject(notFound('courier', w.courierId));
      else w.resolve({ ...row });
    }
    // Live positions follow what is stored: a courier whose newest point of this commit is now its
    // position moved (late points only went to the history).
    for (const b of batches) {
      const row = byId.get(b.courierId);
      if (row === undefined || row.last_recorded_at !== b.newest.recordedAt) continue;
      if (row.last_lat !== b.newest.lat || row.last_lng !== b.newest.lng) continue;
      this.ctx.live.publish(
        'courier.location',
        { mode: row.mode, accountId: row.account_id, courierId: row.id },
        { courier: row.id, lat: b.newest.lat, lng: b.newest.lng, recorded_at: iso(b.newest.recordedAt) },
      );
    }
  }

  /** Waits for the commits in progress (app.close() has already stopped new requests). */
  close(): Promise<void> {
    if (!this.writing && !this.scheduled && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}

/** A commit's points by courier, each courier's in arrival order (requests, then their points). */
function batchesOf(group: Waiting[]): CourierBatch[] {
  const by = new Map<string, CourierBatch>();
  for (const w of group) {
    for (const p of w.points) {
      const b = by.get(w.courierId);
      if (b === undefined) by.set(w.courierId, { courierId: w.courierId, points: [p], newest: p, at: w.at });
      else {
        b.points.push(p);
        if (p.recordedAt >= b.newest.recordedAt) b.newest = p;
        b.at = Math.max(b.at, w.at);
      }
    }
  }
  return [...by.values()];
}

/** This instance's writer (created on the first ping, drained when the app closes). */
export const LOCATIONS = instanceKey('locations', (ctx: AppContext) => new LocationWriter(ctx));
