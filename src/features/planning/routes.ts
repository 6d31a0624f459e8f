import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireCarrier } from '../../shared/access.js';
import { principalOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams } from '../../shared/params.js';
import { commitPlan } from './commit.js';
import * as depots from './depots.js';
import { editPlan } from './edit.js';
import * as plans from './plans.js';
import {
  CommitBody,
  Depot,
  DepotCreate,
  DepotList,
  DepotListQuery,
  PlanCreate,
  PlanEdit,
  RoutePlan,
} from './schemas.js';

/**
 * Depots and route plans (DESIGN §10): the carrier's (operator keys, admins, dispatchers), one set
 * per environment; merchant keys get 403. Creating a depot is for admins and operator keys.
 */
export function planningRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Route planning'];

  r.post(
    '/depots',
    {
      schema: {
        tags,
        operationId: 'createDepot',
        summary: 'Create a depot (admins and operator keys)',
        body: DepotCreate,
        response: { 201: Depot, ...errorResponses(401, 403, 422) },
      },
    },
    async (req, reply) => {
      const scope = requireCarrier(req);
      if (principalOf(req).role === 'dispatcher') {
        throw new ApiError('permission_denied', 'Only admins and operator keys may create depots.');
      }
      reply.code(201);
      return depots.createDepot(ctx, scope, req.body);
    },
  );

  r.get(
    '/depots',
    {
      schema: {
        tags,
        operationId: 'listDepots',
        summary: 'List depots, newest first',
        querystring: DepotListQuery,
        response: { 200: DepotList, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => depots.listDepots(ctx, requireCarrier(req), req.query),
  );

  r.get(
    '/depots/:id',
    {
      schema: {
        tags,
        operationId: 'getDepot',
        summary: 'Read a depot',
        params: IdParams,
        response: { 200: Depot, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => depots.getDepot(ctx, requireCarrier(req), req.params.id),
  );

  r.post(
    '/route_plans',
    {
      schema: {
        tags,
        operationId: 'createRoutePlan',
        summary: 'Plan a day\u2019s routes for some couriers (runs in the background)',
        description:
          'Answers 202 with the plan queued; poll GET /v1/route_plans/{id} or follow route_plan messages on /v1/stream until status is succeeded or failed.',
        body: PlanCreate,
        response: { 202: RoutePlan, ...errorResponses(401, 403, 422) },
      },
    },
    async (req, reply) => {
      const scope = requireCarrier(req);
      reply.code(202);
      return plans.createPlan(ctx, scope, req.body);
    },
  );

  r.get(
    '/route_plans/:id',
    {
      schema: {
        tags,
        operationId: 'getRoutePlan',
        summary: 'Read a route plan, its progress and, once succeeded, its routes',
        params: IdParams,
        response: { 200: RoutePlan, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => plans.getPlan(ctx, requireCarrier(req), req.params.id),
  );

  r.patch(
    '/route_plans/:id',
    {
      schema: {
        tags,
        operationId: 'editRoutePlan',
        summary: 'Move or reorder stops of a plan before committing it',
        description:
          'Each route named is replaced whole (orders may come from other routes or from unassigned); an order taken off and named nowhere is left out with reason manual. Times, loads, distances and durations are recomputed with the travel model of the run; a broken time window, capacity or shift is accepted and listed on its stop (violations), and then the commit needs force. 409 plan_not_ready once committed or before it succeeded.',
        params: IdParams,
        body: PlanEdit,
        response: { 200: RoutePlan, ...errorResponses(401, 403, 404, 409, 422, 503) },
      },
    },
    async (req) => editPlan(ctx, requireCarrier(req), req.params.id, req.body),
  );

  r.post(
    '/route_plans/:id/commit',
    {
      schema: {
        tags,
        operationId: 'commitRoutePlan',
        summary: 'Create the plan\u2019s routes and assign its orders, all or nothing',
        description:
          'One transaction: every planned order is assigned (one order.assigned each), on the routes as optimized or as last edited. 409 plan_stale, naming the orders, when any changed since the plan; 409 plan_has_violations when an edit broke constraints, unless force is true.',
        params: IdParams,
        body: CommitBody,
        response: { 200: RoutePlan, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (req) => commitPlan(ctx, requireCarrier(req), req.params.id, req.body),
  );
}
