import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireMerchant, scopeOf } from '../../shared/auth.js';
import { errorResponses } from '../../shared/openapi.js';
import { ProofOfDelivery } from '../lifecycle/schemas.js';
import * as lifecycle from '../lifecycle/service.js';
import { trackingOf } from '../tracking/service.js';
import { presentOrder } from './present.js';
import { CancelBody, IdParams, ListQuery, Order, OrderCreate, OrderList, Quote, Tracking } from './schemas.js';
import * as service from './service.js';

export function ordersRoutes(app: FastifyInstance, ctx: service.OrdersContext): void {
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
        summary: 'List orders, newest first',
        querystring: ListQuery,
        response: { 200: OrderList, ...errorResponses(401, 422) },
      },
    },
    async (req) => service.listOrders(ctx, scopeOf(req), req.query),
  );

  r.get(
    '/orders/:id',
    {
      schema: {
        tags,
        summary: 'Read an order by id or tracking code',
        params: IdParams,
        response: { 200: Order, ...errorResponses(401, 404) },
      },
    },
    async (req) => presentOrder(await service.resolveOrder(ctx, scopeOf(req), req.params.id)),
  );

  r.post(
    '/orders/:id/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel an order that is not in a terminal status',
        params: IdParams,
        body: CancelBody,
        response: { 200: Order, ...errorResponses(401, 404, 409, 422) },
      },
    },
    async (req) => lifecycle.cancel(ctx, scopeOf(req), req.params.id, req.body?.reason),
  );

  r.get(
    '/orders/:id/tracking',
    {
      schema: {
        tags,
        summary: 'Tracking state: status, courier location, ETA and timeline',
        params: IdParams,
        response: { 200: Tracking, ...errorResponses(401, 404) },
      },
    },
    async (req) => trackingOf(ctx, await service.resolveOrder(ctx, scopeOf(req), req.params.id)),
  );

  r.get(
    '/orders/:id/proof',
    {
      schema: {
        tags,
        summary: 'Proof of delivery of a delivered order',
        description:
          'Signed links to the signature and photos expire (RUTA_FILE_URL_TTL_SECONDS). An order that is not delivered or partially_delivered answers 404 resource_missing naming its status.',
        params: IdParams,
        response: { 200: ProofOfDelivery, ...errorResponses(401, 404) },
      },
    },
    async (req) => lifecycle.proofOf(ctx, await service.resolveOrder(ctx, scopeOf(req), req.params.id)),
  );
}
