import { randomBytes } from 'node:crypto';
import type { pino } from 'pino';
import type { AppContext } from '../context.js';
import type { Tx } from '../db/index.js';
import {
  type AfterCommit,
  JOBS_QUEUED,
  type Job,
  JobFailed,
  type JobFailure,
  type JobHandler,
  type JobKind,
} from './job.js';
import * as repo from './repo.js';

/** How soon a job queued by another process is found when nothing wakes the runner. */
const POLL_MS = 500;
/** Back-off before attempt n + 1 after a failed attempt n: 1 s, 2 s, 4 s … at most a minute. */
const backoffMs = (attempts: number) => Math.min(60_000, 1000 * 2 ** Math.max(0, attempts - 1));

/** This runner no longer holds the job's lease: another worker took it over. */
export class LeaseLost extends Error {}

export interface JobRunnerOptions {
  /** Fallback poll (default 500 ms); a job queued through this instance wakes it at once. */
  pollMs?: number;
  /** Jobs of a kind at once, instead of the kind's `concurrency(config)` (tests). */
  concurrency?: Record<string, number>;
  log?: pino.Logger;
}

interface Registered {
  kind: JobKind;
  handler: JobHandler;
  limit: number;
}

interface Running {
  job: Job;
  reg: Registered;
  abort: AbortController;
  /** Set when a renewal found another owner: nothing more is written for this job. */
  lost: boolean;
  done: Promise<void>;
}

/**
 * Runs leased jobs of the kinds it is given (`ruta worker`, and `ruta serve` unless --api-only):
 * claims as many due jobs of each kind as that kind has free slots (at most `concurrency` at once
 * per runner; the rest stay queued for this or another runner), renews each lease every third of
 * its length while the handler works, and settles the job with one guarded write: deleted when
 * done, back to the queue after an error (with back-off) or a clean stop, failed once its attempts
 * are spent. A job whose worker died is claimed again when its lease lapses.
 * Woken by this instance's `ctx.signals` (a job queued here), by each job that ends (a slot
 * freed), and by a fallback poll (jobs queued through other processes).
 */
export class JobRunner {
  readonly owner = `jwk_${randomBytes(8).toString('hex')}`;
  private readonly kinds: Registered[];
  private readonly running = new Map<string, Running>();
  private readonly pollMs: number;
  private readonly log: pino.Logger;
  private started = false;
  private stopped = false;
  private looping = false;
  private pendingWake = false;
  private timer: NodeJS.Timeout | undefined;
  /** Claims run one at a time, so two never count the same free slot. */
  private claims: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: AppContext,
    kinds: readonly JobKind[],
    o: JobRunnerOptions = {},
  ) {
    this.kinds = kinds.map((kind) => ({
      kind,
      handler: kind.handler(ctx),
      limit: Math.max(1, o.concurrency?.[kind.kind] ?? kind.concurrency(ctx.config)),
    }));
    this.pollMs = o.pollMs ?? POLL_MS;
    this.log = o.log ?? ctx.logger;
  }

  start(): this {
    this.started = true;
    this.ctx.signals.on(JOBS_QUEUED, this.wake);
    this.wake();
    return this;
  }

  /** Jobs this runner holds now, by kind (tests, logs). */
  runningOf(kind: string): number {
    let n = 0;
    for (const r of this.running.values()) if (r.job.kind === kind) n++;
    return n;
  }

  /** Claims soon (a runner not started claims only when ticked: tests drive it step by step). */
  readonly wake = (): void => {
    if (!this.started || this.stopped) return;
    this.pendingWake = true;
    if (this.looping) return;
    this.looping = true;
    if (this.timer) clearTimeout(this.timer);
    void this.loop();
  };

  private async loop(): Promise<void> {
    try {
      while (this.pendingWake && !this.stopped) {
        this.pendingWake = false;
        await this.tick();
      }
    } catch (err) {
      if (!this.stopped) this.log.error({ err }, 'job runner: claim failed');
    } finally {
      this.looping = false;
      if (!this.stopped) {
        if (this.pendingWake) this.wake();
        else this.timer = setTimeout(this.wake, this.pollMs);
      }
    }
  }

  /** Claims what the free slots allow, kind by kind, and starts it; resolves to how many it started. */
  tick(): Promise<number> {
    const next = this.claims.then(() => this.claimOnce());
    this.claims = next.catch(() => undefined);
    return next;
  }

  private async claimOnce(): Promise<number> {
    let started = 0;
    for (const reg of this.kinds) {
      const free = reg.limit - this.runningOf(reg.kind.kind);
      if (this.stopped || free <= 0) continue;
      const now = this.ctx.clock();
      const jobs = await repo.claimJobs(this.ctx.db, this.ctx.engine, {
        kind: reg.kind.kind,
        owner: this.owner,
        now,
        leaseUntil: now + reg.kind.leaseMs,
        limit: free,
      });
      for (const job of jobs) this.launch(reg, job);
      started += jobs.length;
    }
    return started;
  }

  /** Resolves once nothing runs and a claim finds nothing due: what tests and one-shot commands wait for. */
  async idle(): Promise<void> {
    for (;;) {
      await Promise.all([...this.running.values()].map((r) => r.done));
      const started = await this.tick();
      if (started === 0 && this.running.size === 0) return;
    }
  }

  /** Stops claiming, stops the jobs in hand and hands them back to the queue (their attempt not counted). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.ctx.signals.off(JOBS_QUEUED, this.wake);
    if (this.timer) clearTimeout(this.timer);
    await this.claims;
    for (const r of this.running.values()) r.abort.abort(new Error('the job runner is stopping'));
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  private launch(reg: Registered, job: Job): void {
    const r: Running = { job, reg, abort: new AbortController(), lost: false, done: Promise.resolve() };
    this.running.set(job.id, r);
    r.done = this.execute(r)
      .catch((err) => this.log.error({ err, job: job.id, kind: job.kind }, 'job runner: could not settle a job'))
      .finally(() => {
        this.running.delete(job.id);
        this.wake();
      });
  }

  private async execute(r: Running): Promise<void> {
    const { job, reg } = r;
    const beat = setInterval(() => void this.renew(r), Math.max(10, Math.floor(reg.kind.leaseMs / 3)));
    try {
      if (job.attempts > job.max_attempts) {
        // Every attempt so far ended with its worker gone: fail the job rather than loop on it.
        this.log.warn({ job: job.id, kind: job.kind, ref: job.ref }, 'job failed: interrupted on every attempt');
        await this.fail(r, { reason: 'interrupted', attempts: job.max_attempts }, 'interrupted on every attempt');
        return;
      }
      let completed = false;
      let error: unknown;
      try {
        await reg.handler.run(job, {
          signal: r.abort.signal,
          complete: async (work) => {
            const out = await this.complete(r, work);
            completed = true;
            return out;
          },
          step: (work) => this.step(r, work),
        });
      } catch (err) {
        error = err ?? new Error('the job failed');
      }
      if (completed || r.lost || error instanceof LeaseLost) return;
      if (r.abort.signal.aborted) {
        await this.giveBack(r);
        return;
      }
      if (error === undefined) {
        await this.complete(r, async () => undefined);
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof JobFailed || job.attempts >= job.max_attempts) {
        this.log.error({ err: error, job: job.id, kind: job.kind, ref: job.ref }, 'job failed');
        await this.fail(r, { reason: 'error', attempts: job.attempts, error }, message);
        return;
      }
      this.log.warn(
        { err: error, job: job.id, kind: job.kind, attempts: job.attempts },
        'job attempt failed; retrying',
      );
      const now = this.ctx.clock();
      await repo.retryJob(this.ctx.db, job.id, this.owner, now, now + backoffMs(job.attempts), message);
    } catch (err) {
      if (!(err instanceof LeaseLost)) throw err;
    } finally {
      clearInterval(beat);
    }
  }

  private async renew(r: Running): Promise<void> {
    if (r.abort.signal.aborted) return;
    try {
      const held = await repo.renewLease(this.ctx.db, r.job.id, this.owner, this.ctx.clock() + r.reg.kind.leaseMs);
      if (held || r.abort.signal.aborted) return;
      r.lost = true;
      this.log.warn({ job: r.job.id, kind: r.job.kind }, 'job runner: lease lost to another worker; stopping the job');
      r.abort.abort(new LeaseLost(`job ${r.job.id}: lease lost`));
    } catch (err) {
      // A failed renewal is retried at the next beat; the lease has two more thirds to run.
      if (!this.stopped) this.log.warn({ err, job: r.job.id }, 'job runner: lease renewal failed');
    }
  }

  /** The handler's final write and the job's completion in one transaction, while the lease is ours. */
  private async complete<T>(r: Running, work: (trx: Tx) => Promise<T>): Promise<T> {
    return this.ctx.db.transaction().execute(async (trx) => {
      if (!(await repo.completeJob(trx, r.job.id, this.owner))) {
        r.lost = true;
        throw new LeaseLost(`job ${r.job.id}: lease lost`);
      }
      return work(trx);
    });
  }

  /** The handler's write and a renewal of the lease in one transaction, while the lease is ours. */
  private async step<T>(r: Running, work: (trx: Tx) => Promise<T>): Promise<T> {
    return this.ctx.db.transaction().execute(async (trx) => {
      if (!(await repo.renewLease(trx, r.job.id, this.owner, this.ctx.clock() + r.reg.kind.leaseMs))) {
        r.lost = true;
        throw new LeaseLost(`job ${r.job.id}: lease lost`);
      }
      return work(trx);
    });
  }

  private async fail(r: Running, failure: JobFailure, error: string): Promise<void> {
    let after: AfterCommit;
    const held = await this.ctx.db.transaction().execute(async (trx) => {
      if (!(await repo.failJob(trx, r.job.id, this.owner, this.ctx.clock(), error.slice(0, 2000)))) return false;
      after = await r.reg.handler.failed(trx, r.job, failure);
      return true;
    });
    if (held) after?.();
  }

  private async giveBack(r: Running): Promise<void> {
    let after: AfterCommit;
    const held = await this.ctx.db.transaction().execute(async (trx) => {
      if (!(await repo.returnJob(trx, r.job.id, this.owner, this.ctx.clock()))) return false;
      after = await r.reg.handler.returned?.(trx, r.job);
      return true;
    });
    if (held) after?.();
  }
}
