import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireMover } from '../../shared/access.js';
import { actorOf, principalOf, scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams } from '../../shared/params.js';
import { Route, RouteCreate } from '../dispatch/schemas.js';
import { PinOverrideBody } from '../orders/proof-schemas.js';
import { CancelBody, Order } from '../orders/schemas.js';
import { resolveOrder } from '../orders/service.js';
import { createRoute } from './assign-route.js';
import { overridePin } from './pin.js';
import { MOVE_BODIES, ProofOfDelivery } from './schemas.js';
import * as lifecycle from './service.js';
import { type Action, COURIER_MOVES, TRANSITIONS } from './transitions.js';

/**
 * Everything that moves an order: `POST /orders/{id}/<action>` for every move of the transition
 * table, cancel (also open to merchants), route creation (a batch of assigns), and the proof a
 * delivery leaves.
 */
export function lifecycleRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const action of Object.keys(MOVE_BODIES) as Exclude<Action, 'cancel'>[]) {
    const t = TRANSITIONS[action];
    const to = action === 'deliver' ? `${t.to} (or partially_delivered)` : t.to;
    r.post(
      `/orders/:id/${action}`,
      {
        schema: {
          tags: ['Lifecycle'],
          operationId: `${action}Order`,
          summary: `${action}: ${t.from.join(', ')} \u2192 ${to}`,
          description: `Allowed from ${t.from.join(', ')}; any other status answers 409 invalid_transition. Emits ${t.event}${action === 'deliver' ? ' (or order.partially_delivered)' : ''}. Operator keys, or test keys on their own orders (sandbox); live secret keys get 403.`,
          params: IdParams,
          body: MOVE_BODIES[action],
          response: { 200: Order, ...errorResponses(401, 403, 404, 409, 422) },
        },
      },
      async (req) => {
        const scope = requireMover(req, { courier: COURIER_MOVES.includes(action) });
        const run = lifecycle.moves[action] as (
          c: AppContext,
          s: typeof scope,
          id: string,
          body: unknown,
        ) => Promise<Order>;
        return run(ctx, scope, req.params.id, req.body);
      },
    );
  }

  const tags = ['Orders'];

  r.post(
    '/orders/:id/cancel',
    {
      schema: {
        tags,
        operationId: 'cancelOrder',
        summary: 'Cancel an order that is not in a terminal status',
        params: IdParams,
        body: CancelBody,
        response: { 200: Order, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (req) => lifecycle.cancel(ctx, scopeOf(req, { courier: false }), req.params.id, req.body?.reason),
  );

  r.get(
    '/orders/:id/proof',
    {
      schema: {
        tags,
        operationId: 'getOrderProof',
        summary: 'Proof of delivery of a delivered order',
        description:
          'Signed links to the signature and photos expire (RUTA_FILE_URL_TTL_SECONDS). An order that is not delivered or partially_delivered answers 404 resource_missing naming its status.',
        params: IdParams,
        response: { 200: ProofOfDelivery, ...errorResponses(401, 404) },
      },
    },
    async (req) => lifecycle.proofOf(ctx, await resolveOrder(ctx, scopeOf(req), req.params.id)),
  );

  r.post(
    '/orders/:id/pin_override',
    {
      schema: {
        tags,
        operationId: 'overrideOrderPin',
        summary: 'Let a locked delivery PIN go: the order can be delivered without it',
        description:
          'For a PIN locked by five wrong tries (409 pin_locked on deliver). The carrier (operator keys, admins, dispatchers), or a test key on its own orders; writes order.pin_overridden with the reason. Any other PIN state answers 409 pin_not_locked.',
        params: IdParams,
        body: PinOverrideBody,
        response: { 200: Order, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (req) => overridePin(ctx, requireMover(req), req.params.id, req.body.reason, actorOf(principalOf(req))),
  );

  r.post(
    '/routes',
    {
      schema: {
        tags: ['Routes'],
        operationId: 'createRoute',
        summary: 'Create a route: assigns every order to the courier, in stop order, all or nothing',
        body: RouteCreate,
        response: { 201: Route, ...errorResponses(401, 403, 409, 422) },
      },
    },
    async (req, reply) => {
      const scope = requireMover(req);
      reply.code(201);
      return createRoute(ctx, scope, req.body);
    },
  );
}
