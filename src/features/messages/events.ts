import type { Tx } from '../../shared/db/index.js';
import { iso } from '../../shared/time.js';
import { recordOrderEvent } from '../webhooks/outbox.js';
import * as repo from './repo.js';

/**
 * A message as the API shows it; `to` is masked unless the caller owns it (DESIGN §14), and the
 * delivery PIN in its body unless `withPin` (the merchant reading its own messages: the carrier's
 * people and the events they can read never see the code).
 */
export function presentMessage(m: repo.MessageRow, owner: boolean, withPin = owner) {
  return {
    id: m.id,
    object: 'message' as const,
    order: m.order_id,
    trigger: m.trigger,
    channel: m.channel,
    to: owner ? m.to_address : mask(m.to_address),
    locale: m.locale,
    subject: m.subject,
    // Null only for a row not rendered yet that its order no longer explains (service.ts renders the others).
    body: (withPin ? m.body : (m.body_masked ?? m.body)) ?? '',
    status: m.status,
    reason: m.reason,
    provider: m.provider,
    provider_message_id: m.provider_message_id,
    segments: m.segments ?? 0,
    attempts: m.attempts,
    livemode: m.mode === 'live',
    created_at: iso(m.created_at),
    sent_at: m.sent_at === null ? null : iso(m.sent_at),
    delivered_at: m.delivered_at === null ? null : iso(m.delivered_at),
  };
}

/** `+51•••••4321`, `a•••@example.com`: enough to recognise, not to write to. */
export function mask(address: string | null): string | null {
  if (address === null) return null;
  const at = address.indexOf('@');
  if (at > 0) return `${address[0]}•••${address.slice(at)}`;
  return `${address.slice(0, 3)}•••••${address.slice(-4)}`;
}

/**
 * `message.delivered` / `message.failed`: an order event (the merchant's endpoints subscribed to
 * it get it, in the order's sequence) written in the transaction that records the status.
 */
export async function recordMessageEvent(
  trx: Tx,
  type: 'message.delivered' | 'message.failed',
  m: repo.MessageRow,
  now: number,
): Promise<boolean> {
  const order = await repo.nextOrderEvent(trx, m.order_id);
  if (!order) return false;
  await recordOrderEvent(trx, type, order, { message: presentMessage(m, true, false) }, now);
  return true;
}
