import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { settingsOwner, withAccountNamed } from '../../shared/access.js';
import { principalOf, requireMerchant, scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams, SettingsAccountQuery } from '../../shared/params.js';
import { accountById } from '../accounts/service.js';
import { createOrder } from './create.js';
import { CountsQuery, ListQuery, OrderCounts } from './list-schemas.js';
import { presentOrder } from './present.js';
import { ProofSettings, ProofSettingsUpdate } from './proof-schemas.js';
import { getProofSettings, updateProofSettings } from './proof-settings.js';
import { quote } from './quote.js';
import { Order, OrderCreate, OrderList, Quote } from './schemas.js';
import * as service from './service.js';

/** The delivery PIN is shown to the merchant (its keys and its users) only: see presentOrder. */
const seesPin = (req: FastifyRequest) => principalOf(req).role === 'merchant';

/** Proof settings: a merchant's own, the carrier's defaults (shared/access.ts, as notification settings). */
/** Whose proof settings: a merchant's own, a merchant's named by the carrier, or the carrier's defaults. */
const proofSettingsOwner = (ctx: AppContext, req: FastifyRequest, account: string | undefined) =>
  settingsOwner(req, 'proof settings', account, async (id) => !!(await accountById(ctx, id)));

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
      return createOrder(ctx, accountId, mode, req.body);
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
      return quote(ctx, accountId, mode, req.body);
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
        response: { 200: OrderList, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => service.listOrders(ctx, scopeOf(req), withAccountNamed(req, req.query), seesPin(req)),
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
        response: { 200: OrderCounts, ...errorResponses(401, 403, 422) },
      },
    },
    // The board's numbers: a courier's phone has no board (DESIGN §9).
    async (req) => service.countOrders(ctx, scopeOf(req, { courier: false }), withAccountNamed(req, req.query)),
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
    async (req) => presentOrder(await service.resolveOrder(ctx, scopeOf(req), req.params.id), seesPin(req)),
  );

  r.get(
    '/proof_settings',
    {
      schema: {
        tags,
        operationId: 'getProofSettings',
        summary: "What a delivery must capture: a merchant's own settings, or the carrier's defaults",
        querystring: SettingsAccountQuery,
        response: { 200: ProofSettings, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => getProofSettings(ctx, await proofSettingsOwner(ctx, req, req.query.account)),
  );

  r.put(
    '/proof_settings',
    {
      schema: {
        tags,
        operationId: 'updateProofSettings',
        summary: 'Change what a delivery must capture (only what the body names); orders created later follow',
        querystring: SettingsAccountQuery,
        body: ProofSettingsUpdate,
        response: { 200: ProofSettings, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => updateProofSettings(ctx, await proofSettingsOwner(ctx, req, req.query.account), req.body),
  );
}
