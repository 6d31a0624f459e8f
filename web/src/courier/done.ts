import { isFinished } from '../../../src/features/lifecycle/transitions.js';
import type { Order } from '../shared/api';
import type { MoveEntry } from './queue';
import type { DoneStop } from './storage';

/** Where a finished stop was: its district, else its city, as the server shows it (no street once done: DESIGN §9). */
const placeOf = (o: Order) => o.delivery_address.district ?? o.delivery_address.city ?? '';

const entry = (o: Order, status: string, at: number): DoneStop => ({
  id: o.id,
  name: o.customer.name,
  address: placeOf(o),
  status,
  at,
});

/**
 * "Done today": the server's list (GET /v1/couriers/{id}/done_today, as last read), with what it
 * does not know yet: stops whose move it accepted since (the move's answer finished the stop), and
 * finishing moves still waiting in this phone's outbox, which count at once, offline too. A move the
 * server refuses leaves the outbox, and the stop is no longer counted. Oldest first, one per order.
 */
export function mergeDone(server: DoneStop[], stops: Order[], queued: MoveEntry[]): DoneStop[] {
  const done = new Map(server.map((d) => [d.id, d]));
  for (const o of stops) {
    if (isFinished(o.status) && !done.has(o.id)) done.set(o.id, entry(o, o.status, Date.parse(o.updated_at)));
  }
  for (const q of queued) {
    const o = stops.find((s) => s.id === q.orderId);
    if (o && isFinished(q.to)) done.set(o.id, entry(o, q.to, q.queuedAt));
  }
  return [...done.values()].sort((a, b) => a.at - b.at);
}
