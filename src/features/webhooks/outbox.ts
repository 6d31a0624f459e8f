import { API_VERSION } from '../../shared/config.js';
import type { Tx } from '../../shared/db/index.js';
import type { Mode } from '../../shared/db/schema.js';
import { newId } from '../../shared/ids.js';

export interface OrderRef {
  id: string;
  account_id: string;
  mode: Mode;
  external_order_id: string | null;
  tracking_code: string;
  status: string;
}

export interface RecordedEvent {
  id: string;
  type: string;
  sequence: number;
  payload: string;
}

/**
 * Writes an order event to the outbox inside the caller's transaction, so the state change and
 * its event commit or roll back together. The envelope is serialised once, here, and those exact
 * bytes are what every delivery attempt sends.
 */
export async function recordOrderEvent(
  trx: Tx,
  type: string,
  order: OrderRef,
  extra: Record<string, unknown> = {},
  now = Date.now(),
): Promise<RecordedEvent> {
  const { event_seq: sequence } = await trx
    .updateTable('orders')
    .set((eb) => ({ event_seq: eb('event_seq', '+', 1) }))
    .where('id', '=', order.id)
    .returning('event_seq')
    .executeTakeFirstOrThrow();
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
  await trx
    .insertInto('events')
    .values({ id, account_id: order.account_id, mode: order.mode, type, order_id: order.id, payload, created_at: now })
    .execute();
  return { id, type, sequence, payload };
}
