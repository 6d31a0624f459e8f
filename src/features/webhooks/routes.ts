import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { withAccountNamed } from '../../shared/access.js';
import { requireMerchant, scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { EmptyBody, IdParams } from '../../shared/params.js';
import { EndpointListQuery } from './ops-schemas.js';
import * as reads from './ops-service.js';
import {
  AttemptList,
  AttemptQuery,
  Deleted,
  Delivery,
  Endpoint,
  EndpointCreate,
  EndpointList,
  EndpointUpdate,
} from './schemas.js';
import * as service from './service.js';

/**
 * Webhook endpoints: merchants (secret keys, merchant users) manage their own account's. The carrier
 * (operator keys, admins, dispatchers) may only read them, every account's of its environment
 * (ops-service.ts), to see disabled endpoints; it changes none.
 */
export function webhooksRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Webhooks'];
  const owner = (req: Parameters<typeof requireMerchant>[0]) => requireMerchant(req);

  r.post(
    '/webhook_endpoints',
    {
      schema: {
        tags,
        operationId: 'createWebhookEndpoint',
        summary: 'Register a webhook endpoint (the answer holds its signing secret)',
        body: EndpointCreate,
        response: { 201: Endpoint, ...errorResponses(401, 403, 422) },
      },
    },
    async (req, reply) => {
      const o = owner(req);
      reply.code(201);
      return service.createEndpoint(ctx, o, req.body);
    },
  );

  r.get(
    '/webhook_endpoints',
    {
      schema: {
        tags,
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints, newest first (the carrier: across accounts)',
        querystring: EndpointListQuery,
        response: { 200: EndpointList, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => reads.listEndpoints(ctx, scopeOf(req, { courier: false }), withAccountNamed(req, req.query)),
  );

  r.get(
    '/webhook_endpoints/:id',
    {
      schema: {
        tags,
        operationId: 'getWebhookEndpoint',
        summary: 'Read a webhook endpoint',
        params: IdParams,
        response: { 200: Endpoint, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => reads.getEndpoint(ctx, scopeOf(req, { courier: false }), req.params.id),
  );

  r.patch(
    '/webhook_endpoints/:id',
    {
      schema: {
        tags,
        operationId: 'updateWebhookEndpoint',
        summary: 'Update url, events, description or status (enabled/disabled)',
        params: IdParams,
        body: EndpointUpdate,
        response: { 200: Endpoint, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => service.updateEndpoint(ctx, owner(req), req.params.id, req.body),
  );

  r.delete(
    '/webhook_endpoints/:id',
    {
      schema: {
        tags,
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint',
        params: IdParams,
        response: { 200: Deleted, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => service.deleteEndpoint(ctx, owner(req), req.params.id),
  );

  r.post(
    '/webhook_endpoints/:id/rotate_secret',
    {
      schema: {
        tags,
        operationId: 'rotateWebhookEndpointSecret',
        summary: 'Roll the signing secret; the old one keeps signing alongside for 24 h',
        params: IdParams,
        body: EmptyBody,
        response: { 200: Endpoint, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => service.rotateSecret(ctx, owner(req), req.params.id),
  );

  r.post(
    '/webhook_endpoints/:id/test',
    {
      schema: {
        tags,
        operationId: 'testWebhookEndpoint',
        summary: 'Send a signed webhook.test event to this endpoint only',
        params: IdParams,
        body: EmptyBody,
        response: { 202: Delivery, ...errorResponses(401, 403, 404) },
      },
    },
    async (req, reply) => {
      const o = owner(req);
      reply.code(202);
      return service.sendTest(ctx, o, req.params.id);
    },
  );

  r.get(
    '/webhook_endpoints/:id/deliveries',
    {
      schema: {
        tags,
        operationId: 'listWebhookEndpointDeliveries',
        summary: 'Attempt log of an endpoint, newest first',
        params: IdParams,
        querystring: AttemptQuery,
        response: { 200: AttemptList, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => service.listAttempts(ctx, owner(req), req.params.id, req.query),
  );
}
