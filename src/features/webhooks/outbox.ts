import { EventEmitter } from 'node:events';
import { API_VERSION } from '../../shared/config.js';
import type { Executor, Tx } from '../../shared/db/index.js';
import type { Mode } from '../../shared/db/schema.js';
import { newId } from '../../shared/ids.js';
import * as events from '../events/repo.js';
import * as repo from './repo.js';
import type { DeliveryKind } from './tables.js';

/**
 * Wakes this process's dispatcher when deliveries are queued. Emitting before the commit is safe:
 * SQLite serialises the dispatcher's claim behind the open transaction, and on PostgreSQL a
 * trigger's NOTIFY (delivered at commit) wakes every worker again once the rows are visible.
 */
export const deliveriesQueued = new EventEmitter();

export function subscribes(events: string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

export function deliveryRow(
  event: { id: string; order_id: string | null; sequence: number },
  endpoint: { id: string; account_id: string; mode: Mode },
  kind: DeliveryKind,
  now: number,
): repo.DeliveryRow {
  return {
    id: newId('del', now),
    event_id: event.id,
    endpoint_id: endpoint.id,
    account_id: endpoint.account_id,
    mode: endpoint.mode,
    order_id: event.order_id,
    sequence: event.sequence,
    kind,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    first_attempt_at: null,
    last_attempt_at: null,
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    last_status_code: null,
    created_at: now,
    completed_at: null,
  };
}

export interface OrderRef {
  id: string;
  account_id: string;
  mode: Mode;
  external_order_id: string | null;
  tracking_code: string;
  status: string;
  /** This event's per-order sequence, already written to the order by the caller's insert or move. */
  event_seq: number;
}

export interface RecordedEvent {
  id: string;
  type: string;
  sequence: number;
  payload: string;
}

/** An order event ready to be written: its row, its deliveries, and what the caller gets back. */
export interface PreparedEvent {
  event: events.EventRow;
  deliveries: repo.DeliveryRow[];
  recorded: RecordedEvent;
}

/**
 * Builds an order event: the envelope is serialised once, here, and those exact bytes are what
 * every delivery attempt sends. A delivery is prepared for every endpoint of the order's account
 * and environment that is enabled and subscribed at this moment (one read of the endpoints). The
 * caller has already set `event_seq` on the order in the same statement as the state change
 * (insert with 1, or the move's guarded UPDATE adds 1), so the sequence costs no statement.
 */
export async function prepareOrderEvent(
  db: Executor,
  type: string,
  order: OrderRef,
  extra: Record<string, unknown> = {},
  now = Date.now(),
): Promise<PreparedEvent> {
  const sequence = order.event_seq;
  const id = newId('evt', now);
  const envelope = {
    id,
    object: 'event',
    event: type,
    created_at: new Date(now).toISOString(),
    livemode: order.mode === 'live',
    api_version: API_VERSION,
    data: {
      id: order.id,
      object: 'order',
      external_order_id: order.external_order_id,
      tracking_code: order.tracking_code,
      status: order.status,
      ...extra,
      sequence,
    },
  };
  const payload = JSON.stringify(envelope);
  const endpoints = await repo.enabledEndpoints(db, { accountId: order.account_id, mode: order.mode });
  const deliveries = endpoints
    .filter((e) => subscribes(JSON.parse(e.events) as string[], type))
    .map((e) => deliveryRow({ id, order_id: order.id, sequence }, e, 'event', now));
  return {
    event: { id, account_id: order.account_id, mode: order.mode, type, order_id: order.id, payload, created_at: now },
    deliveries,
    recorded: { id, type, sequence, payload },
  };
}

/** Writes a prepared event and its deliveries inside the caller's transaction. */
export async function writeOrderEvent(trx: Tx, p: PreparedEvent): Promise<void> {
  await events.insertEvent(trx, p.event);
  await repo.insertDeliveries(trx, p.deliveries);
  announce(p);
}

/** Wakes this process's dispatcher if the event queued deliveries. */
export function announce(p: PreparedEvent): void {
  if (p.deliveries.length > 0) deliveriesQueued.emit('queued');
}

/**
 * Writes an order event to the outbox inside the caller's transaction, so the state change and
 * its event commit or roll back together (see prepareOrderEvent for what is written).
 */
export async function recordOrderEvent(
  trx: Tx,
  type: string,
  order: OrderRef,
  extra: Record<string, unknown> = {},
  now = Date.now(),
): Promise<RecordedEvent> {
  const p = await prepareOrderEvent(trx, type, order, extra, now);
  await writeOrderEvent(trx, p);
  return p.recorded;
}
