import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams } from '../../shared/params.js';
import { Tracking } from '../orders/schemas.js';
import { resolveOrder } from '../orders/service.js';
import { trackingOf } from './service.js';

/** The authenticated tracking view of an order (the public page and its JSON are in public-routes.ts). */
export function trackingRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Orders'];

  r.get(
    '/orders/:id/tracking',
    {
      schema: {
        tags,
        operationId: 'getOrderTracking',
        summary: 'Tracking state: status, courier location, ETA and timeline',
        params: IdParams,
        response: { 200: Tracking, ...errorResponses(401, 404) },
      },
    },
    async (req) => trackingOf(ctx, await resolveOrder(ctx, scopeOf(req), req.params.id)),
  );
}
