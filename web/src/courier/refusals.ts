import { isFinished } from '../../../src/features/lifecycle/transitions.js';
import type { Order } from '../shared/api';
import { statusWords } from './format';
import type { Failure } from './queue';
import type { DoneStop } from './storage';

/** A refusal as the courier reads it: `already` when what the move wanted is done (not an error). */
export interface Explained {
  failure: Failure;
  already: boolean;
  /** Who the stop is for (the customer's name; the order id only when the phone knows no name). */
  name: string;
  text: string;
}

/** The statuses of a stop on its way, in order: a move to one of them is done once the stop is there or further. */
const ON_THE_WAY = ['assigned', 'ready_for_pickup', 'picked_up', 'in_transit', 'arriving', 'at_location'];

const word = (status: string) => statusWords(status).toLowerCase();

/** A refused action as a noun ("the delivery was not recorded"); `what` as queue.ts records it. */
const ACTS: Record<string, string> = {
  deliver: 'delivery',
  fail: 'failed attempt',
  'start route': 'Start route',
  depart: 'departure',
  arrive: 'arrival',
  load: 'scan',
  ready: 'ready for pickup',
};
const act = (what: string) => ACTS[what] ?? what;

/** Whether a stop now `status` is where a move to `to` would have taken it, or past it. */
function reached(status: string, to: string): boolean {
  // A delivery or a failed attempt is done only as itself: a stop closed otherwise is a conflict.
  if (isFinished(to)) return status === to || (to === 'delivered' && status === 'partially_delivered');
  // Loading, pickup, departure…: a stop already finished needs none of them any more.
  if (isFinished(status)) return true;
  const at = ON_THE_WAY.indexOf(status);
  return at >= 0 && at >= ON_THE_WAY.indexOf(to);
}

/**
 * What a refused move means, read against the stops and today's done list as last read from the
 * server. A move is refused for the order's state (409 `invalid_transition`; 404 for an order the
 * courier session no longer sees, as once it is finished) when another phone of the same courier,
 * or dispatch, moved the stop first: if the stop is where the move wanted it, nothing went wrong.
 * Any other refusal (a validation error, a wrong PIN) stays one, named by the customer.
 */
export function explain(f: Failure, stops: Order[], done: DoneStop[]): Explained {
  const stop = stops.find((s) => s.id === f.orderId);
  const finished = done.find((d) => d.id === f.orderId);
  const name = f.customer ?? stop?.customer.name ?? finished?.name ?? f.orderId;
  const out = (already: boolean, text: string): Explained => ({ failure: f, already, name, text });
  const conflict = f.status === 404 || f.code === 'invalid_transition' || f.code === 'resource_missing';
  if (!conflict || !f.to) return out(false, `${name}: the ${act(f.what)} was refused: ${f.message}`);
  // The route's own read wins over the done list: a stop failed and then assigned again is on it.
  const now = stop?.status ?? finished?.status;
  if (now === undefined) {
    return out(
      false,
      `${name}: no longer on your route (reassigned or cancelled by dispatch); the ${act(f.what)} was not recorded.`,
    );
  }
  if (reached(now, f.to)) return out(true, `${name}: already ${word(now)} (from another phone or by dispatch)`);
  return out(
    false,
    `${name}: the ${act(f.what)} was not recorded: the stop was already marked ${word(now)} (from another phone or by dispatch).`,
  );
}

/** One quiet line for the refusals that were already done: the first's words, or how many and whose. */
export function alreadyNote(done: Explained[]): string {
  if (done.length === 1) return done[0]!.text;
  return `${done.length} stops already done from another phone or by dispatch: ${done.map((d) => d.name).join(', ')}`;
}
