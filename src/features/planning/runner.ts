import type { AppContext } from '../../shared/context.js';
import { instanceKey } from '../../shared/instance.js';
import type { OrderRow } from '../orders/repo.js';
import { plannedCouriers, publishPlan } from './planned.js';
import { buildProblem, presentResult } from './problem.js';
import * as repo from './repo.js';
import { solve } from './solver/index.js';

/** Progress is written and published at most this often (the solver reports about every 100 ms). */
const PROGRESS_EVERY_MS = 250;

/**
 * The plans this instance is solving. solve() runs in a worker thread, so a plan costs the event
 * loop only its setup and writes; closing the app aborts the workers and waits for them.
 */
export class PlanRunner {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();

  constructor(private readonly ctx: AppContext) {}

  start(plan: repo.PlanRow, orders: OrderRow[]): void {
    const abort = new AbortController();
    const done = this.run(plan, orders, abort.signal)
      .catch((err) => this.ctx.logger.error({ err, plan: plan.id }, 'route plan: could not record its end'))
      .finally(() => this.running.delete(plan.id));
    this.running.set(plan.id, { abort, done });
  }

  /** Resolves when every plan started so far has ended (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  async close(): Promise<void> {
    for (const r of this.running.values()) r.abort.abort(new Error('shutting down'));
    await this.idle();
  }

  private async update(id: string, set: Parameters<typeof repo.updatePlan>[2]): Promise<void> {
    publishPlan(this.ctx, await repo.updatePlan(this.ctx.db, id, { ...set, updated_at: this.ctx.clock() }));
  }

  private async run(plan: repo.PlanRow, orders: OrderRow[], signal: AbortSignal): Promise<void> {
    const req = plan.request;
    try {
      await this.update(plan.id, { status: 'running' });
      const { depot, couriers } = await plannedCouriers(this.ctx, plan);
      const built = await buildProblem(this.ctx.config, { date: plan.date, depot, couriers, orders }, signal);
      let lastWrite = 0;
      let writing: Promise<void> = Promise.resolve();
      const result = await solve(built.problem, {
        timeLimitMs: req.time_limit_ms,
        seed: req.seed,
        objective: req.objective,
        signal,
        onProgress: (progress) => {
          const now = Date.now();
          if (now - lastWrite < PROGRESS_EVERY_MS) return;
          lastWrite = now;
          // One write at a time, in order; a failed progress write does not fail the plan.
          writing = writing
            .then(() => this.update(plan.id, { progress: Math.min(0.99, progress) }))
            .catch((err) => this.ctx.logger.warn({ err, plan: plan.id }, 'route plan: progress not written'));
        },
      });
      await writing;
      const out = presentResult(built, couriers, result);
      await this.update(plan.id, { status: 'succeeded', progress: 1, result: out });
    } catch (err) {
      if (signal.aborted) return;
      this.ctx.logger.error({ err, plan: plan.id }, 'route plan failed');
      const message =
        err instanceof Error && err.message.startsWith('OSRM')
          ? 'Travel times could not be read from the OSRM server.'
          : 'The plan could not be computed.';
      await this.update(plan.id, { status: 'failed', failure: message });
    }
  }
}

export const PLANS = instanceKey('planning:runner', (ctx: AppContext) => new PlanRunner(ctx));
