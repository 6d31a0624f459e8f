import { randomBytes } from 'node:crypto';
import type { pino } from 'pino';
import type { AppContext } from '../../shared/context.js';
import * as repo from './repo.js';
import { LEASE_MS, type RunOptions, runImport } from './run.js';

/** How often an idle runner looks for work: one indexed read, and an upload waits at most this long. */
const POLL_MS = 250;

export interface ImportRunnerOptions {
  pollMs?: number;
  leaseMs?: number;
  batchRows?: number;
  onProgress?: RunOptions['onProgress'];
}

/**
 * The background import worker of `ruta serve` / `ruta worker`: claims one import at a time
 * (queued ones, and processing ones whose worker died and whose lease lapsed), runs it, and
 * polls for the next. Polling, not a wake-up signal: an import is not latency-sensitive, and a
 * poll finds uploads made through any instance.
 */
export class ImportRunner {
  readonly owner = `imp_wkr_${randomBytes(8).toString('hex')}`;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: pino.Logger,
    private readonly o: ImportRunnerOptions = {},
  ) {}

  start(): this {
    this.schedule(0);
    return this;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.current = this.tick().then(
        (more) => this.schedule(more ? 0 : (this.o.pollMs ?? POLL_MS)),
        (err) => {
          this.log.error({ err }, 'import runner failed; retrying');
          this.schedule(this.o.pollMs ?? POLL_MS);
        },
      );
    }, ms);
  }

  /** Claims and runs one import; true when there was one (look again at once). */
  async tick(): Promise<boolean> {
    const now = this.ctx.clock();
    const leaseMs = this.o.leaseMs ?? LEASE_MS;
    const imp = await repo.claimImport(this.ctx.db, this.ctx.engine, {
      owner: this.owner,
      now,
      leaseUntil: now + leaseMs,
    });
    if (!imp) return false;
    this.log.info({ import: imp.id, from: imp.processed_rows, total: imp.total_rows }, 'import claimed');
    await runImport(this.ctx, imp, {
      owner: this.owner,
      leaseMs,
      batchRows: this.o.batchRows,
      onProgress: this.o.onProgress,
      stopping: () => this.stopped,
    });
    return true;
  }

  /** Finishes the batch in flight, gives the lease back and stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.current?.catch(() => {});
  }
}

export function startImportRunner(ctx: AppContext, log: pino.Logger): ImportRunner {
  return new ImportRunner(ctx, log).start();
}
