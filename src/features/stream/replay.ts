import type { AppContext } from '../../shared/context.js';
import { newId } from '../../shared/ids.js';
import {
  frameOf,
  type Held,
  isOpen,
  orderFrame,
  paced,
  type ResetReason,
  resetFrame,
  type Stream,
  write,
} from './conn.js';
import * as repo from './repo.js';
import { orderAudience, orderEventFilter, visibleTo } from './scope.js';

/** Last-Event-ID reaches back this far; older events are not replayed (DESIGN §13). */
export const RESUME_WINDOW_MS = 3600_000;
const PAGE = 500;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** What the replay needs of its hub. */
export interface ReplayHost {
  ctx: AppContext;
  /** Aborted when the hub closes: a replay waiting for a client stops waiting. */
  stop: AbortSignal;
  /** Resolves once every event committed before the call has been through the live path. */
  caughtUp(): Promise<void>;
}

/**
 * Sends a resumed stream what it missed after `after`, then what arrived live meanwhile (`held`),
 * and hands it over to the live path. Runs after the response has started, so the backlog goes
 * page by page at the client's pace (`paced`), however large. It is bounded instead: a
 * Last-Event-ID older than the window, or more than `streamReplayMax` events to send, gets
 * `event: reset` and a fresh id (the client reloads its data), and the stream goes on live.
 *
 * The rows come through the scope's filter (`orderEventFilter`, the SQL form of the rule) and each
 * one is still checked with `visibleTo`, the rule the live path applies, so both send the same.
 */
export async function replay(host: ReplayHost, s: Stream, after: string): Promise<void> {
  const { ctx, stop } = host;
  const max = ctx.config.streamReplayMax;
  const since = ctx.clock() - RESUME_WINDOW_MS;
  const filter = orderEventFilter(s.scope);
  const sent = new Set<string>();
  s.replayed = sent;
  // A scope that sees no order event (a courier's phone) has no backlog: nothing missed, no reset.
  if (filter !== null) {
    if (timeOfId(after) < since) return reset(host, s, 'too_old');
    // One bounded count first, so a client far behind is told at once rather than after megabytes.
    if ((await repo.countAfter(ctx.db, filter, { afterId: after, since, limit: max + 1 })) > max) {
      return reset(host, s, 'too_far_behind');
    }
    for (let cursor = after; ; ) {
      const page = await repo.eventsAfter(ctx.db, filter, { afterId: cursor, since, limit: PAGE });
      for (const e of page) {
        if (!visibleTo(s.scope, orderAudience(e))) continue;
        sent.add(e.id);
        s.cursor = e.id;
        if (!(await paced(s, orderFrame(e), stop))) return;
      }
      // Commits outpacing a slow client (each one is also held): it would only ever fall further behind.
      if (s.overflow) return reset(host, s, 'too_far_behind');
      const last = page.at(-1);
      if (page.length < PAGE || last === undefined) break;
      cursor = last.id;
    }
  }
  // An event the last page read may still be on its way through the live path (its NOTIFY in
  // flight): once that path has caught up, every held copy of a replayed event is known as sent.
  await host.caughtUp();
  const held = s.held ?? [];
  // Indexed: what arrives while the held ones are written joins the same list, in order.
  for (let i = 0; i < held.length; i++) {
    if (s.overflow) return reset(host, s, 'too_far_behind');
    const h = held[i] as Held;
    if ('order' in h && sent.has(h.order.id)) continue;
    if (!(await paced(s, frameOf(s, h), stop))) return;
  }
  s.held = undefined;
  s.replayed = undefined;
}

/**
 * How many live arrivals a replaying stream keeps: twice the bound, because the live copies of the
 * events being replayed (a burst that has just committed) may come on top of the new ones. An
 * entry is a reference to the event every stream shares, so this bounds a stalled client's cost.
 */
export function heldMax(ctx: AppContext): number {
  return 2 * ctx.config.streamReplayMax;
}

/**
 * Tells the client to reload, with an id to resume from that is now; the stream goes on live.
 * First the live path catches up (what it brings meanwhile is held, then dropped): everything
 * committed so far is in the reload, and would otherwise arrive after the reset all at once (a
 * burst the tail or a NOTIFY had not delivered yet), over the slow-client limit.
 */
async function reset(host: ReplayHost, s: Stream, reason: ResetReason): Promise<void> {
  const { ctx } = host;
  await host.caughtUp();
  s.held = undefined;
  s.replayed = undefined;
  s.overflow = false;
  s.cursor = newId('evt', ctx.clock());
  if (isOpen(s)) write(s, resetFrame(s.cursor, reason), ctx.logger);
}

/** The time an id was made at (its first 10 characters, Crockford base 32 milliseconds). */
export function timeOfId(id: string): number {
  let ms = 0;
  for (const c of id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11)) ms = ms * 32 + CROCKFORD.indexOf(c);
  return ms;
}
