import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireMerchant } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams } from '../../shared/params.js';
import { DeliveryList } from '../webhooks/schemas.js';
import { Event, EventList, EventQuery, RedeliverBody } from './schemas.js';
import * as service from './service.js';

/** The event log: merchant keys only, each sees its own account and environment. */
export function eventsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Events'];
  const owner = (req: Parameters<typeof requireMerchant>[0]) => requireMerchant(req);

  r.get(
    '/events',
    {
      schema: {
        tags,
        operationId: 'listEvents',
        summary: 'List events, newest first',
        querystring: EventQuery,
        response: { 200: EventList, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => service.listEvents(ctx, owner(req), req.query),
  );

  r.get(
    '/events/:id',
    {
      schema: {
        tags,
        operationId: 'getEvent',
        summary: 'Read an event and its deliveries',
        params: IdParams,
        response: { 200: Event, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => service.getEvent(ctx, owner(req), req.params.id),
  );

  r.post(
    '/events/:id/redeliver',
    {
      schema: {
        tags,
        operationId: 'redeliverEvent',
        summary: 'Send an event again, to one endpoint or to every subscribed one',
        params: IdParams,
        body: RedeliverBody,
        response: { 202: DeliveryList, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const o = owner(req);
      const res = await service.redeliver(ctx, o, req.params.id, req.body.endpoint);
      reply.code(202);
      return res;
    },
  );
}
