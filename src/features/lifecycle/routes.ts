import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams, Order } from '../orders/schemas.js';
import type { OrdersContext } from '../orders/service.js';
import { requireMover } from './access.js';
import { MOVE_BODIES } from './schemas.js';
import { moves } from './service.js';
import { type Action, TRANSITIONS } from './transitions.js';

/** `POST /orders/{id}/<action>` for every move of the transition table (cancel lives in the orders API). */
export function lifecycleRoutes(app: FastifyInstance, ctx: OrdersContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const action of Object.keys(MOVE_BODIES) as Exclude<Action, 'cancel'>[]) {
    const t = TRANSITIONS[action];
    const to = action === 'deliver' ? `${t.to} (or partially_delivered)` : t.to;
    r.post(
      `/orders/:id/${action}`,
      {
        schema: {
          tags: ['Lifecycle'],
          summary: `${action}: ${t.from.join(', ')} \u2192 ${to}`,
          description: `Allowed from ${t.from.join(', ')}; any other status answers 409 invalid_transition. Emits ${t.event}${action === 'deliver' ? ' (or order.partially_delivered)' : ''}. Operator keys, or test keys on their own orders (sandbox); live secret keys get 403.`,
          params: IdParams,
          body: MOVE_BODIES[action],
          response: { 200: Order, ...errorResponses(401, 403, 404, 409, 422) },
        },
      },
      async (req) => {
        const scope = requireMover(req);
        const run = moves[action] as (c: OrdersContext, s: typeof scope, id: string, body: unknown) => Promise<Order>;
        return run(ctx, scope, req.params.id, req.body);
      },
    );
  }
}
