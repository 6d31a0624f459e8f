import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { withAccountNamed } from '../../shared/access.js';
import { scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { DeliveryDetailList, DeliveryListQuery } from './ops-schemas.js';
import * as ops from './ops-service.js';

/**
 * Failed deliveries, for the console's Exceptions page and the carrier's monitoring: read-only.
 * A merchant (secret key or merchant user) sees its own account's; the carrier (operator keys,
 * admins, dispatchers) every account's of its environment. Couriers' phones get 403.
 */
export function webhookOpsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/webhook_deliveries',
    {
      schema: {
        tags: ['Webhooks'],
        operationId: 'listWebhookDeliveries',
        summary: 'List failed webhook deliveries, newest first (the carrier: across accounts)',
        querystring: DeliveryListQuery,
        response: { 200: DeliveryDetailList, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => ops.listDeliveries(ctx, scopeOf(req, { courier: false }), withAccountNamed(req, req.query)),
  );
}
