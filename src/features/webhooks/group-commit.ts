import type { Db, Engine, Tx } from '../../shared/db/index.js';

type Pending = { fn: (trx: Tx) => Promise<unknown>; resolve(v: unknown): void; reject(e: unknown): void };

/**
 * Runs attempt outcomes in transactions. On SQLite, outcomes recorded in the same turn of the event
 * loop share one transaction (a group commit): a commit per attempt was the worker's largest cost
 * after the sends themselves. Should the shared transaction fail, every outcome in it is rejected
 * and its delivery is sent again once its lease expires (delivery is at least once). PostgreSQL
 * commits run in parallel on the pool, one transaction each.
 */
export class GroupCommit {
  private pending: Pending[] = [];

  constructor(
    private readonly db: Db,
    private readonly engine: Engine,
  ) {}

  run<T>(fn: (trx: Tx) => Promise<T>): Promise<T> {
    if (this.engine === 'postgres') return this.db.transaction().execute(fn);
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const results = await this.db.transaction().execute(async (trx) => {
        const out: unknown[] = [];
        for (const r of batch) out.push(await r.fn(trx));
        return out;
      });
      for (const [i, r] of batch.entries()) r.resolve(results[i]);
    } catch (err) {
      for (const r of batch) r.reject(err);
    }
  }
}
