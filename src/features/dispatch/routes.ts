import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireMover } from '../../shared/access.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams } from '../../shared/params.js';
import { doneToday } from './done-today.js';
import { getRoute, listRoutes } from './route-read.js';
import {
  Courier,
  CourierCreate,
  CourierList,
  CourierListQuery,
  CourierUpdate,
  DoneStopList,
  LocationBody,
  LocationList,
  LocationsBody,
  Route,
  RouteList,
  RouteListQuery,
} from './schemas.js';
import * as service from './service.js';

/**
 * Couriers, and reading routes (creating one assigns orders, so it lives with the other moves in
 * lifecycle/routes.ts). Operator keys for the whole environment, test keys for sandbox couriers of their own.
 */
export function dispatchRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const couriers = ['Couriers'];
  const routes = ['Routes'];

  r.post(
    '/couriers',
    {
      schema: {
        tags: couriers,
        operationId: 'createCourier',
        summary: 'Create a courier',
        body: CourierCreate,
        response: { 201: Courier, ...errorResponses(401, 403, 422) },
      },
    },
    async (req, reply) => {
      const scope = requireMover(req);
      reply.code(201);
      return service.createCourier(ctx, scope, req.body);
    },
  );

  r.get(
    '/couriers',
    {
      schema: {
        tags: couriers,
        operationId: 'listCouriers',
        summary: 'List couriers, newest first',
        querystring: CourierListQuery,
        response: { 200: CourierList, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => service.listCouriers(ctx, requireMover(req), req.query),
  );

  r.get(
    '/couriers/:id',
    {
      schema: {
        tags: couriers,
        operationId: 'getCourier',
        summary: 'Read a courier and its last position',
        params: IdParams,
        response: { 200: Courier, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => service.getCourier(ctx, requireMover(req, { courier: true }), req.params.id),
  );

  r.patch(
    '/couriers/:id',
    {
      schema: {
        tags: couriers,
        operationId: 'updateCourier',
        summary: 'Update a courier (a new name also shows on its orders)',
        params: IdParams,
        body: CourierUpdate,
        response: { 200: Courier, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => service.updateCourier(ctx, requireMover(req), req.params.id, req.body),
  );

  r.post(
    '/couriers/:id/location',
    {
      schema: {
        tags: couriers,
        operationId: 'recordCourierLocation',
        summary: 'Report the courier\u2019s position (sent every few seconds by the device)',
        description:
          'One small write, answered once committed. A ping older than the stored position is kept in the history but does not move the courier, so late uploads never move a courier backwards.',
        params: IdParams,
        body: LocationBody,
        response: { 200: Courier, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => service.recordLocation(ctx, requireMover(req, { courier: true }), req.params.id, req.body),
  );

  r.post(
    '/couriers/:id/locations',
    {
      schema: {
        tags: couriers,
        operationId: 'recordCourierLocations',
        summary: 'Report a batch of buffered positions (1 to 100, oldest first)',
        description:
          'For devices that buffer fixes while offline. Answered once every point is committed, so the device may then forget them. Every point goes to the history; only points newer than the stored position move the courier. Answers the courier as it now stands.',
        params: IdParams,
        body: LocationsBody,
        response: { 200: Courier, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => service.recordLocations(ctx, requireMover(req, { courier: true }), req.params.id, req.body),
  );

  r.get(
    '/couriers/:id/locations',
    {
      schema: {
        tags: couriers,
        operationId: 'listCourierLocations',
        summary: 'The courier\u2019s most recent pings (at most 100), newest first',
        params: IdParams,
        response: { 200: LocationList, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => service.locationsOf(ctx, requireMover(req, { courier: true }), req.params.id),
  );

  r.get(
    '/couriers/:id/done_today',
    {
      schema: {
        tags: couriers,
        operationId: 'listCourierDoneToday',
        summary:
          'The courier\u2019s orders finished today (each order\u2019s own zone), oldest first: the courier app\u2019s progress and \u201cDone today\u201d',
        params: IdParams,
        response: { 200: DoneStopList, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => doneToday(ctx, requireMover(req, { courier: true }), req.params.id),
  );

  r.get(
    '/routes',
    {
      schema: {
        tags: routes,
        operationId: 'listRoutes',
        summary: 'List routes, newest first: of a day, of a courier',
        description:
          'Each route with its stops and their statuses, as GET /v1/routes/{id} reads it. A courier’s phone lists its own routes only.',
        querystring: RouteListQuery,
        response: { 200: RouteList, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => listRoutes(ctx, requireMover(req, { courier: true }), req.query),
  );

  r.get(
    '/routes/:id',
    {
      schema: {
        tags: routes,
        operationId: 'getRoute',
        summary: 'Read a route with its stops and their statuses',
        params: IdParams,
        response: { 200: Route, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => getRoute(ctx, requireMover(req, { courier: true }), req.params.id),
  );
}
