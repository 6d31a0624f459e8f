import type { makeClient, Order } from '../../shared/api';

type Client = ReturnType<typeof makeClient>;

/** Orders a courier could still be suggested for: not assigned yet. */
const OPEN = ['pending', 'validated'];

/**
 * Auto-dispatch `suggest` on the board (DESIGN §16, docs/dispatch.md): a new order that arrives
 * while the board is open, when no order is selected, opens its suggested couriers by itself, if
 * the mode of its account is `suggest`. The settings are read at each new order (they may change
 * while the board is open); an order's own account's mode is only known to the suggestions'
 * answer (`auto_dispatch`), which is asked only when the carrier's and the accounts' modes differ.
 * Answers the order to select, or null.
 */
export async function orderToSuggest(client: Client, arrived: Order[]): Promise<Order | null> {
  const order = arrived.find((o) => OPEN.includes(o.status) && !o.courier);
  if (!order) return null;
  const { data: settings } = await client.GET('/v1/dispatch_settings');
  if (!settings) return null;
  const modes = new Set([settings.auto_dispatch, ...settings.accounts.map((a) => a.auto_dispatch)]);
  if (!modes.has('suggest')) return null;
  if (modes.size === 1) return order;
  const { data } = await client.GET('/v1/orders/{id}/dispatch_suggestions', { params: { path: { id: order.id } } });
  return data?.auto_dispatch === 'suggest' ? order : null;
}
