import { createAccount } from '../src/features/accounts/service.js';
import type { Merchant, TestApp } from './helpers.js';
import { client, validOrder } from './helpers.js';

/** A merchant whose orders are in `currency`. */
export async function merchantIn(t: TestApp, name: string, currency: string): Promise<Merchant> {
  const { account, keys } = await createAccount(t.ctx, { name, currency });
  return { accountId: account.id, test: keys.test, live: keys.live };
}

export async function newCourier(t: TestApp, operator: string, name: string): Promise<string> {
  const res = await client(t.app, operator)('POST', '/v1/couriers', { name });
  if (res.status !== 201) throw new Error(`courier → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export type Outcome =
  | { deliver: { collected_amount?: number; payment_method?: string; position?: Record<string, unknown> } }
  | { fail: true }
  | { cancel: true };

/**
 * An order of `merchantKey` with `cod` to collect, taken by `courierId` to `outcome`, moved by the
 * carrier's key. Answers the order as created (its shipping_cost, tracking code).
 */
export async function orderWith(
  t: TestApp,
  merchantKey: string,
  operator: string,
  courierId: string,
  cod: number,
  outcome: Outcome,
  over: Record<string, unknown> = {},
) {
  const created = await client(t.app, merchantKey)(
    'POST',
    '/v1/orders',
    validOrder({ requires_signature: false, cash_on_delivery: cod, ...over }),
  );
  if (created.status !== 201) throw new Error(`create → ${created.status} ${JSON.stringify(created.body)}`);
  const order = created.body;
  const call = client(t.app, operator);
  const step = async (action: string, body?: unknown) => {
    const res = await call('POST', `/v1/orders/${order.id}/${action}`, body);
    if (res.status !== 200) throw new Error(`${action} → ${res.status} ${JSON.stringify(res.body)}`);
  };
  if ('cancel' in outcome) {
    await step('cancel');
    return order;
  }
  await step('assign', { courier_id: courierId });
  await step('pickup');
  await step('depart');
  if ('fail' in outcome) await step('fail', { reason: 'customer_absent' });
  else await step('deliver', { receiver_name: 'Ana Torres', ...outcome.deliver });
  return order;
}
