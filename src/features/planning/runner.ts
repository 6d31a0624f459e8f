import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AppContext } from '../../shared/context.js';
import type { Tx } from '../../shared/db/index.js';
import type { Job, JobFailure, JobHandler, JobKind, JobRun } from '../../shared/jobs/job.js';
import { LeaseLost } from '../../shared/jobs/runner.js';
import { plannedCouriers, publishPlan } from './planned.js';
import { buildProblem, presentResult } from './problem.js';
import * as repo from './repo.js';
import { solve } from './solver/index.js';

/** Progress is written and published at most this often (the solver reports about every 100 ms). */
const PROGRESS_EVERY_MS = 250;

/**
 * A plan's solve, as a leased job (src/shared/jobs): `POST /v1/route_plans` queues it with the plan,
 * and whichever runner claims it (`ruta serve`, or `ruta worker` beside `serve --api-only`) solves
 * it, at most `RUTA_PLAN_CONCURRENCY` at once per process. Two attempts: a plan whose process
 * stopped mid-solve is taken over once its lease lapses; if that one stops too, the plan fails
 * with a reason instead of being solved forever. A solve that fails (OSRM, the solver) fails the
 * plan at once, as before: running it again would fail the same way.
 */
export const PLAN_SOLVE: JobKind = {
  kind: 'route_plan.solve',
  maxAttempts: 2,
  // Renewed every 10 s while the solve runs: a dead process's plan is taken over within 30 s.
  leaseMs: 30_000,
  concurrency: (config) => config.planConcurrency,
  handler: (ctx) => new PlanSolve(ctx),
};

class PlanSolve implements JobHandler {
  constructor(private readonly ctx: AppContext) {}

  async run(job: Job, run: JobRun): Promise<void> {
    const { ctx } = this;
    const id = job.ref ?? '';
    // Running again (a takeover) or for the first time: the plan starts over from 0.
    const plan = await repo.updateOpenPlan(ctx.db, id, { status: 'running', progress: 0, updated_at: ctx.clock() });
    if (!plan) return; // ended already, or gone: nothing to solve
    publishPlan(ctx, plan);
    const req = plan.request;
    const { signal } = run;
    try {
      const found = new Map((await repo.ordersByIds(ctx.db, plan.mode, req.order_ids)).map((o) => [o.id, o]));
      const orders = req.order_ids.flatMap((oid) => found.get(oid) ?? []);
      const { depot, couriers } = await plannedCouriers(ctx, plan);
      const built = await buildProblem(
        ctx.config,
        { date: plan.date, depot, couriers, orders, notBefore: plan.created_at },
        signal,
      );
      let lastWrite = 0;
      let writing: Promise<void> = Promise.resolve();
      const result = await solve(built.problem, {
        timeLimitMs: req.time_limit_ms,
        seed: req.seed,
        objective: req.objective,
        signal,
        maxHeapMb: ctx.config.planMemoryMb,
        onProgress: (progress) => {
          const now = ctx.clock();
          if (signal.aborted) return;
          if (now - lastWrite < PROGRESS_EVERY_MS) return;
          lastWrite = now;
          // One write at a time, in order; a failed progress write does not fail the plan.
          writing = writing
            .then(() => this.progress(id, Math.min(0.99, progress)))
            .catch((err) => ctx.logger.warn({ err, plan: id }, 'route plan: progress not written'));
        },
      });
      await writing;
      // The check (in solve), the presentation and the stored JSON are each tens of ms for 2 000
      // stops on the API's thread: a turn of the event loop between them answers waiting requests.
      await nextTurn();
      const out = presentResult(built, couriers, result);
      await nextTurn();
      await this.finish(run, id, { status: 'succeeded', progress: 1, result: out });
    } catch (err) {
      // Stopping or taken over: the runner hands the job back, or leaves it to its new owner.
      if (signal.aborted || err instanceof LeaseLost) throw err;
      ctx.logger.error({ err, plan: id }, 'route plan failed');
      await this.finish(run, id, { status: 'failed', failure: failureMessage(err) });
    }
  }

  async failed(trx: Tx, job: Job, failure: JobFailure) {
    const failure_message =
      failure.reason === 'interrupted'
        ? `The plan was interrupted ${failure.attempts} times before it finished (the process solving it stopped), so it was not started again.`
        : 'The plan could not be computed.';
    const p = await repo.updateOpenPlan(trx, job.ref ?? '', {
      status: 'failed',
      failure: failure_message,
      updated_at: this.ctx.clock(),
    });
    return p && (() => publishPlan(this.ctx, p));
  }

  /** Handed back on a clean stop: queued again, for this process after its restart or for another. */
  async returned(trx: Tx, job: Job) {
    const p = await repo.updateOpenPlan(trx, job.ref ?? '', {
      status: 'queued',
      progress: 0,
      updated_at: this.ctx.clock(),
    });
    return p && (() => publishPlan(this.ctx, p));
  }

  private async progress(id: string, progress: number): Promise<void> {
    const p = await repo.updateOpenPlan(this.ctx.db, id, { progress, updated_at: this.ctx.clock() });
    if (p) publishPlan(this.ctx, p);
  }

  /** The plan's end and the job's completion commit together, only while this runner holds the job. */
  private async finish(run: JobRun, id: string, set: Parameters<typeof repo.updateOpenPlan>[2]): Promise<void> {
    const p = await run.complete((trx) => repo.updateOpenPlan(trx, id, { ...set, updated_at: this.ctx.clock() }));
    if (p) publishPlan(this.ctx, p);
  }
}

function failureMessage(err: unknown): string {
  if (err instanceof Error && err.message.startsWith('OSRM'))
    return 'Travel times could not be read from the OSRM server.';
  if ((err as { code?: unknown })?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return 'The plan is too large to solve within the memory a solve may use; plan fewer orders at once.';
  }
  return 'The plan could not be computed.';
}
