import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireMerchant, scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { presentOrder } from './present.js';
import { CountsQuery, IdParams, ListQuery, Order, OrderCounts, OrderCreate, OrderList, Quote } from './schemas.js';
import * as service from './service.js';

export function ordersRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Orders'];
  // Checked before the body is even parsed: an operator learns it may not do this, not that its body is off.
  const merchantOnly = async (req: FastifyRequest) => {
    requireMerchant(req);
  };

  r.post(
    '/orders',
    {
      schema: {
        tags,
        operationId: 'createOrder',
        summary: 'Create an order',
        body: OrderCreate,
        response: { 201: Order, ...errorResponses(401, 403, 422) },
      },
      onRequest: merchantOnly,
    },
    async (req, reply) => {
      const { accountId, mode } = requireMerchant(req);
      reply.code(201);
      return service.createOrder(ctx, accountId, mode, req.body);
    },
  );

  r.post(
    '/orders/quote',
    {
      schema: {
        tags,
        operationId: 'quoteOrder',
        summary: 'Price an order without creating it',
        body: OrderCreate,
        response: { 200: Quote, ...errorResponses(401, 403, 422) },
      },
      onRequest: merchantOnly,
    },
    async (req) => {
      const { accountId, mode } = requireMerchant(req);
      return service.quote(ctx, accountId, mode, req.body);
    },
  );

  r.get(
    '/orders',
    {
      schema: {
        tags,
        operationId: 'listOrders',
        summary: 'List orders, newest first',
        querystring: ListQuery,
        response: { 200: OrderList, ...errorResponses(401, 422) },
      },
    },
    async (req) => service.listOrders(ctx, scopeOf(req), req.query),
  );

  r.get(
    '/orders/counts',
    {
      schema: {
        tags,
        operationId: 'countOrders',
        summary: 'Count orders per status',
        description:
          'How many orders of each status GET /v1/orders would list with the same filters, in the same scope: a merchant key its account, an operator key every account of its environment.',
        querystring: CountsQuery,
        response: { 200: OrderCounts, ...errorResponses(401, 422) },
      },
    },
    // The board's numbers: a courier's phone has no board (DESIGN §9).
    async (req) => service.countOrders(ctx, scopeOf(req, { courier: false }), req.query),
  );

  r.get(
    '/orders/:id',
    {
      schema: {
        tags,
        operationId: 'getOrder',
        summary: 'Read an order by id or tracking code',
        params: IdParams,
        response: { 200: Order, ...errorResponses(401, 404) },
      },
    },
    async (req) => presentOrder(await service.resolveOrder(ctx, scopeOf(req), req.params.id)),
  );
}
