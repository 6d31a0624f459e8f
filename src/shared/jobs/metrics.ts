import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../context.js';
import type { Db } from '../db/index.js';
import { type QueueRow, queueStats } from './repo.js';

const STATES = ['queued', 'running', 'stalled', 'failed'] as const;

/**
 * `/metrics` gauges of the job queues, read from the jobs table at each scrape (one grouped read),
 * so any instance shows every worker's queues, an API-only one included: jobs by kind and state,
 * and the age of the oldest job waiting (queued, or stalled: its worker's lease lapsed). Every
 * known kind is reported, at 0 when it has no jobs, so an alert on the age needs no `absent()`.
 */
export function installJobMetrics(registry: Registry, db: Db, clock: Clock, kinds: readonly string[]): void {
  if (registry.getSingleMetric('ruta_jobs')) return;
  // A scrape collects every metric at once: both gauges share one read of the table.
  let pending: Promise<{ now: number; rows: QueueRow[] } | undefined> | undefined;
  const snapshot = () => {
    if (!pending) {
      const now = clock();
      pending = queueStats(db, now)
        .then((rows) => ({ now, rows }))
        // A database that does not answer leaves the last figures; the scrape still succeeds.
        .catch(() => undefined)
        .finally(() => {
          pending = undefined;
        });
    }
    return pending;
  };
  const kindsOf = (rows: QueueRow[]) => new Set([...kinds, ...rows.map((r) => r.kind)]);

  new Gauge({
    name: 'ruta_jobs',
    help: 'Background jobs by kind and state (queued, running, stalled: its lease lapsed, failed)',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
    async collect() {
      const s = await snapshot();
      if (!s) return;
      this.reset();
      for (const kind of kindsOf(s.rows)) for (const state of STATES) this.set({ kind, state }, 0);
      for (const r of s.rows) this.set({ kind: r.kind, state: r.state }, r.n);
    },
  });
  new Gauge({
    name: 'ruta_jobs_oldest_waiting_seconds',
    help: 'Age of the oldest job of the kind not running under a live lease (queued or stalled); 0 when none',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      const s = await snapshot();
      if (!s) return;
      const since = new Map<string, number>();
      for (const r of s.rows) {
        if (r.state !== 'queued' && r.state !== 'stalled') continue;
        since.set(r.kind, Math.min(since.get(r.kind) ?? r.oldest_created_at, r.oldest_created_at));
      }
      this.reset();
      for (const kind of kindsOf(s.rows)) {
        const at = since.get(kind);
        this.set({ kind }, at === undefined ? 0 : Math.max(0, (s.now - at) / 1000));
      }
    },
  });
}
