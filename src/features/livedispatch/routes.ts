import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireCarrier } from '../../shared/access.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams } from '../../shared/params.js';
import { reoptimize } from './reoptimize.js';
import {
  DispatchBody,
  DispatchResult,
  DispatchSettings,
  DispatchSettingsUpdate,
  ReoptimizeBody,
  RouteProposal,
  SuggestionList,
} from './schemas.js';
import { dispatchOrder, suggestions } from './service.js';
import { getSettings, putSettings } from './settings.js';

/**
 * Live dispatch (DESIGN §16): the carrier's (operator keys, admins, dispatchers); merchants and
 * couriers get 403, another environment's objects 404.
 */
export function liveDispatchRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Live dispatch'];

  r.get(
    '/dispatch_settings',
    {
      schema: {
        tags,
        operationId: 'getDispatchSettings',
        summary: 'Read the auto-dispatch mode of the environment and its per-account overrides',
        response: { 200: DispatchSettings, ...errorResponses(401, 403) },
      },
    },
    async (req) => getSettings(ctx, requireCarrier(req)),
  );

  r.patch(
    '/dispatch_settings',
    {
      schema: {
        tags,
        operationId: 'updateDispatchSettings',
        summary: 'Set the auto-dispatch mode (off, suggest, assign) of the carrier or of accounts',
        description:
          'auto_dispatch sets the carrier\u2019s mode for the environment; accounts[] overrides it per account (null removes the override). With assign, a worker inserts every same-day order created from then on into the best courier\u2019s route within 30 s.',
        body: DispatchSettingsUpdate,
        response: { 200: DispatchSettings, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => putSettings(ctx, requireCarrier(req), req.body),
  );

  r.get(
    '/orders/:id/dispatch_suggestions',
    {
      schema: {
        tags,
        operationId: 'listDispatchSuggestions',
        summary: 'Rank the couriers on duty by the cost of inserting the order into their current route',
        description:
          'Each courier with a route of the order\u2019s day (or a position in the last 2 h) gets the cheapest position for the order, from where it is now: added km and minutes, the new ETA of every remaining stop, and any window, capacity or shift it would break. Best first: feasible ones by added distance. A courier with a route of the day but nowhere to start from (no start depot: its own, its route plan\u2019s or the account\u2019s; no position) is listed in unavailable with the reason instead. 409 invalid_transition when the order cannot be assigned; 409 order_not_dispatchable without coordinates.',
        params: IdParams,
        response: { 200: SuggestionList, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (req) => suggestions(ctx, requireCarrier(req), req.params.id),
  );

  r.post(
    '/orders/:id/dispatch',
    {
      schema: {
        tags,
        operationId: 'dispatchOrder',
        summary: 'Insert the order into a courier\u2019s route at its cheapest position',
        description:
          'Without courier_id, the best courier that breaks nothing (409 no_courier_fits when none); with it, that courier at its cheapest position, whatever it breaks (listed). The assignment (order.assigned) and the new stop order commit together; a courier without a route of the day gets one.',
        params: IdParams,
        body: DispatchBody,
        response: { 200: DispatchResult, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (req) => dispatchOrder(ctx, requireCarrier(req), req.params.id, req.body),
  );

  r.post(
    '/routes/:id/reoptimize',
    {
      schema: {
        tags,
        operationId: 'reoptimizeRoute',
        summary: 'Re-optimize a route under way from where its courier is now',
        description:
          'Finished stops stay first; the stop the courier is at or arriving at stays next; the rest is solved again from the courier\u2019s last position and the current time (or its start depot before it sets off), keeping what is on board on the route. Answers the proposal beside the current order with the saving, never worse than the current order. apply: true commits it (solving again), or, with order_ids and route_version from a proposal, commits exactly that proposal: 409 route_changed if the route changed since.',
        params: IdParams,
        body: ReoptimizeBody,
        response: { 200: RouteProposal, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (req) => reoptimize(ctx, requireCarrier(req), req.params.id, req.body),
  );
}
