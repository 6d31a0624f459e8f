import { ApiFailure, newIdempotencyKey, type Order } from '../../shared/api';
import type { useSession } from '../session';

type Client = ReturnType<typeof useSession>['client'];

export interface AssignOutcome {
  assigned: Order[];
  failed: { id: string; message: string }[];
}

/**
 * Assigns each order to the courier with the board's operation (POST /v1/orders/{id}/assign), one
 * request per order, each with its own Idempotency-Key: one refused order (moved meanwhile, say)
 * does not stop the others, and its API error is returned to be shown.
 */
export async function assignOrders(client: Client, ids: string[], courierId: string): Promise<AssignOutcome> {
  const out: AssignOutcome = { assigned: [], failed: [] };
  for (const id of ids) {
    try {
      const r = await client.POST('/v1/orders/{id}/assign', {
        params: { path: { id } },
        body: { courier_id: courierId },
        headers: { 'Idempotency-Key': newIdempotencyKey() },
      });
      if (r.data) out.assigned.push(r.data);
      else {
        const body = (r.error as { error?: { message?: string } } | undefined)?.error;
        out.failed.push({ id, message: body?.message ?? `Request failed (${r.response.status})` });
      }
    } catch (e) {
      out.failed.push({ id, message: e instanceof ApiFailure || e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}
