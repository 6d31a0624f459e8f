import type { AppContext } from '../../shared/context.js';
import type { Executor } from '../../shared/db/index.js';
import type { Mode } from '../../shared/db/schema.js';
import { ApiError } from '../../shared/errors.js';
import { randomToken } from '../../shared/ids.js';
import { enqueue, type JobKind } from '../../shared/jobs/job.js';
import { addDays, localDay } from '../../shared/local-time.js';
import * as repo from './repo.js';
import { dispatchOrder } from './service.js';

/**
 * How often the auto-dispatch sweep looks for new orders while some account of the environment is
 * on `assign`: an order is inserted within this long (plus the sweep's own time) of its creation,
 * well inside DESIGN §16's 30 s.
 */
export const SWEEP_INTERVAL_MS = 5_000;
/** Orders handled per sweep; the rest wait for the next one. */
const SWEEP_BATCH = 200;

/**
 * The auto-dispatch sweep: a leased job per environment that inserts every new same-day order of
 * the accounts on `assign` into the best courier's route, then queues its successor
 * SWEEP_INTERVAL_MS later while any account is still on `assign` (the chain ends when none is;
 * turning `assign` on starts it again). Each order is handled once (auto_dispatches), whatever
 * crashes in between: a sweep whose worker died is taken over after its lease, and an order already
 * assigned meanwhile fails its guarded move and is left alone.
 */
export const AUTO_DISPATCH: JobKind = {
  kind: 'auto_dispatch',
  maxAttempts: 3,
  leaseMs: 60_000,
  concurrency: () => 1,
  handler: (ctx) => ({
    async run(job, run) {
      const mode = (job.ref ?? '').split(':')[0] as Mode;
      await sweep(ctx, mode, run.signal);
      await run.complete((trx) => chainNext(ctx, trx, mode));
    },
    // A sweep that keeps failing still leaves a successor, so one bad night does not end auto-dispatch.
    async failed(trx, job) {
      await chainNext(ctx, trx, (job.ref ?? '').split(':')[0] as Mode);
      return undefined;
    },
  }),
};

async function assignOn(db: Executor, mode: Mode): Promise<boolean> {
  return (await repo.allSettings(db, mode)).some((r) => r.auto_dispatch === 'assign');
}

async function chainNext(ctx: AppContext, trx: Executor, mode: Mode): Promise<void> {
  if (!(await assignOn(trx, mode))) return;
  const now = ctx.clock();
  await enqueue(trx, AUTO_DISPATCH, { ref: `${mode}:${randomToken(12)}`, now, runAt: now + SWEEP_INTERVAL_MS });
}

/** Starts the chain of an environment if none is queued (in the transaction that turned `assign` on). */
export async function ensureSweep(ctx: AppContext, trx: Executor, mode: Mode): Promise<boolean> {
  if (!(await assignOn(trx, mode)) || (await repo.sweepQueued(trx, AUTO_DISPATCH.kind, mode))) return false;
  await enqueue(trx, AUTO_DISPATCH, { ref: `${mode}:${randomToken(12)}`, now: ctx.clock() });
  return true;
}

/**
 * One pass: the unassigned orders due today (each in its own zone) of accounts on `assign`, created
 * since `assign` was turned on for them, oldest first. An order that fits nowhere is recorded
 * `no_fit` and left to the dispatcher.
 */
export async function sweep(ctx: AppContext, mode: Mode, signal?: AbortSignal): Promise<number> {
  const settings = await repo.allSettings(ctx.db, mode);
  const carrier = settings.find((s) => s.account_id === repo.CARRIER);
  const own = new Map(settings.filter((s) => s.account_id !== repo.CARRIER).map((s) => [s.account_id, s]));
  const now = ctx.clock();
  // Every zone's today is one of these UTC days.
  const utc = localDay(now, 'UTC');
  const candidates = await repo.sweepCandidates(ctx.db, mode, [addDays(utc, -1), utc, addDays(utc, 1)], SWEEP_BATCH);
  let done = 0;
  for (const { order, dueDay } of candidates) {
    if (signal?.aborted) break;
    const setting = own.get(order.account_id) ?? carrier;
    if (setting?.auto_dispatch !== 'assign' || order.created_at < setting.updated_at) continue;
    if (dueDay !== localDay(now, order.timezone)) continue;
    const scope = { mode, accountId: null };
    const record = (
      outcome: 'assigned' | 'no_fit' | 'error',
      o: { courier?: string; route?: string; message?: string },
    ) =>
      ({
        order_id: order.id,
        mode,
        outcome,
        courier_id: o.courier ?? null,
        route_id: o.route ?? null,
        message: o.message ?? null,
        created_at: ctx.clock(),
      }) as const;
    try {
      // The record commits with the move: a crash between them cannot assign twice or forget one.
      await dispatchOrder(ctx, scope, order.id, {}, (trx, chosen) =>
        repo.recordAutoDispatch(
          trx,
          record('assigned', { courier: chosen.situation.courier.id, route: chosen.situation.route?.id }),
        ),
      );
      done++;
    } catch (err) {
      // Moved by someone else meanwhile: theirs to handle, nothing to record.
      if (err instanceof ApiError && err.code === 'invalid_transition') continue;
      const fit = err instanceof ApiError && (err.code === 'no_courier_fits' || err.code === 'order_not_dispatchable');
      ctx.logger.info({ order: order.id, err: fit ? undefined : err }, 'auto-dispatch left an order unassigned');
      await repo.recordAutoDispatch(
        ctx.db,
        record(fit ? 'no_fit' : 'error', { message: err instanceof Error ? err.message : String(err) }),
      );
    }
  }
  return done;
}
