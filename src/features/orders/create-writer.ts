import { Histogram } from 'prom-client';
import type { AppContext } from '../../shared/context.js';
import { instanceKey } from '../../shared/instance.js';
import { metricOn } from '../../shared/metrics.js';
import type { Created } from './create-repo.js';
import * as repo from './create-repo.js';

interface Waiting {
  order: Created;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** A transaction never carries more than this many orders: on PostgreSQL, one statement's worth. */
const MAX_BATCH = repo.ORDERS_PER_STATEMENT;

/**
 * Group commit for POST /v1/orders. The commit is the most expensive part of a create (a third of
 * the SQLite create path's time: BENCHMARKS.md, "Group commit of creates"), so the creates that
 * reach this point in one turn of the event loop are written together at its end, in one
 * transaction (and those queued meanwhile in the next). Nothing waits on a timer: an idle server
 * writes each create at once, alone; groups form only under load.
 *
 * Each request is answered only after the commit that holds its order, so what a 201 promises is
 * unchanged. A failed batch is written again one order at a time, so one order that cannot be
 * written fails its own request and no other.
 *
 * SQLite has one writer, so one write at a time; PostgreSQL runs a few side by side so the
 * round trip of one does not idle the others.
 */
export class OrderWriter {
  private queue: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  private idle: (() => void)[] = [];
  private readonly maxInFlight: number;
  /** Orders per commit: 1 when idle, more under load (what operators read to see the grouping work). */
  private readonly batchSize: Histogram;

  constructor(private readonly ctx: AppContext) {
    this.maxInFlight = ctx.engine === 'sqlite' ? 1 : 4;
    const name = 'ruta_order_create_batch_size';
    this.batchSize = metricOn(
      ctx.metrics,
      name,
      () =>
        new Histogram({
          name,
          help: 'Orders created per commit (POST /v1/orders, grouped under load)',
          buckets: [1, 2, 4, 8, 16, 32, 64, 100],
          registers: [ctx.metrics],
        }),
    );
  }

  /** Resolves once `order` is committed; rejects with the error its own write met. */
  write(order: Created): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ order, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // After the poll phase: every request read in this turn of the loop has queued by then. (A
      // synchronous driver finishes a write within one turn, so "whoever arrives during the write"
      // would always be nobody.)
      setImmediate(() => {
        this.scheduled = false;
        this.pump();
      });
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.inFlight++;
      void this.commit(batch).finally(() => {
        this.inFlight--;
        this.pump();
        if (this.inFlight === 0 && this.queue.length === 0) for (const done of this.idle.splice(0)) done();
      });
    }
  }

  private async commit(batch: Waiting[]): Promise<void> {
    try {
      await repo.insertCreated(
        this.ctx.db,
        this.ctx.engine,
        batch.map((w) => w.order),
      );
      this.batchSize.observe(batch.length);
      for (const w of batch) w.resolve();
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      // Which order failed is unknown: each is tried alone, and answers for itself.
      for (const w of batch) {
        await repo.insertCreated(this.ctx.db, this.ctx.engine, [w.order]).then(() => {
          this.batchSize.observe(1);
          w.resolve();
        }, w.reject);
      }
    }
  }

  /** Waits for the writes in progress (app.close() has already stopped new requests). */
  close(): Promise<void> {
    if (this.inFlight === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}

/** This instance's writer (created on the first create, drained when the app closes). */
export const ORDER_WRITES = instanceKey('order-writes', (ctx: AppContext) => new OrderWriter(ctx));
