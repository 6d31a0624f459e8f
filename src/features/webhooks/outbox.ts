import { API_VERSION } from '../../shared/config.js';
import type { AppContext } from '../../shared/context.js';
import type { Executor, Tx } from '../../shared/db/index.js';
import type { DeliveryKind, Mode } from '../../shared/db/schema.js';
import { newId } from '../../shared/ids.js';
import * as events from './events-repo.js';
import * as repo from './repo.js';

/**
 * The signal (on `ctx.signals`, so only this instance's dispatcher hears it) that deliveries were
 * queued. Sent after the commit, when a claim can see them; on PostgreSQL the trigger's NOTIFY at
 * commit also wakes every worker in other processes.
 */
export const QUEUED = 'webhooks:queued';

/** Wakes this instance's dispatcher: call after committing a write that may have queued deliveries. */
export function signalQueued(ctx: Pick<AppContext, 'signals'>): void {
  ctx.signals.emit(QUEUED);
}

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
  extra: Record<string, unknown>,
  now: number,
  /** The account's enabled endpoints, when the caller read them once for many events (a bulk import's batch). */
  known?: repo.EndpointRow[],
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
  const endpoints = known ?? (await repo.enabledEndpoints(db, { accountId: order.account_id, mode: order.mode }));
  const deliveries = endpoints
    .filter((e) => subscribes(e.events, type))
    .map((e) => deliveryRow({ id, order_id: order.id, sequence }, e, 'event', now));
  return {
    event: { id, account_id: order.account_id, mode: order.mode, type, order_id: order.id, payload, created_at: now },
    deliveries,
    recorded: { id, type, sequence, payload },
  };
}

/** The endpoints prepareOrderEvent would read, read once for a batch of events of one account and environment. */
export function enabledEndpointsOf(
  db: Executor,
  owner: { accountId: string; mode: Mode },
): Promise<repo.EndpointRow[]> {
  return repo.enabledEndpoints(db, owner);
}

/** Writes a prepared event and its deliveries inside the caller's transaction. */
export async function writeOrderEvent(trx: Tx, p: PreparedEvent): Promise<void> {
  await events.insertEvent(trx, p.event);
  await repo.insertDeliveries(trx, p.deliveries);
}

/** After the commit: wakes this instance's dispatcher if the event queued deliveries. */
export function announce(ctx: Pick<AppContext, 'signals'>, p: PreparedEvent): void {
  if (p.deliveries.length > 0) signalQueued(ctx);
}

/**
 * Writes an order event to the outbox inside the caller's transaction, so the state change and
 * its event commit or roll back together (see prepareOrderEvent for what is written). The caller
 * calls signalQueued(ctx) after its commit.
 */
export async function recordOrderEvent(
  trx: Tx,
  type: string,
  order: OrderRef,
  extra: Record<string, unknown>,
  now: number,
): Promise<RecordedEvent> {
  const p = await prepareOrderEvent(trx, type, order, extra, now);
  await writeOrderEvent(trx, p);
  return p.recorded;
}

/**
 * An event about something other than an order (a settlement issued, DESIGN §17), written in the
 * caller's transaction like an order event. It has no order, so no per-order sequence (0): its
 * deliveries wait behind nothing. `data` is the object as the API shows it.
 */
export async function recordAccountEvent(
  trx: Tx,
  type: string,
  owner: { accountId: string; mode: Mode },
  data: Record<string, unknown>,
  now: number,
): Promise<PreparedEvent> {
  const id = newId('evt', now);
  const payload = JSON.stringify({
    id,
    object: 'event',
    event: type,
    created_at: new Date(now).toISOString(),
    livemode: owner.mode === 'live',
    api_version: API_VERSION,
    data,
  });
  const endpoints = await repo.enabledEndpoints(trx, owner);
  const deliveries = endpoints
    .filter((e) => subscribes(e.events, type))
    .map((e) => deliveryRow({ id, order_id: null, sequence: 0 }, e, 'event', now));
  const p: PreparedEvent = {
    event: { id, account_id: owner.accountId, mode: owner.mode, type, order_id: null, payload, created_at: now },
    deliveries,
    recorded: { id, type, sequence: 0, payload },
  };
  await writeOrderEvent(trx, p);
  return p;
}
