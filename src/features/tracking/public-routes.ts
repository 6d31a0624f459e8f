import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { errorResponses } from '../../shared/openapi.js';
import { PAGE_CSP, renderNotFoundPage, renderTrackingPage } from './page.js';
import { publicTracking } from './public.js';
import { PublicTracking, TrackingCodeParams, TrackingPageQuery } from './public-schemas.js';

/** Tracking state changes by the minute and the URL is a bearer secret: nothing may cache it or leak it onward. */
function privateHeaders(reply: FastifyReply): void {
  reply.header('Cache-Control', 'no-store');
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Robots-Tag', 'noindex, nofollow');
}

/** Keyless routes for end customers. Registered inside the public scope, which rate-limits per client address. */
export function publicTrackingRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Public tracking'];

  r.get(
    '/v1/public/tracking/:tracking_code',
    {
      schema: {
        tags,
        operationId: 'getPublicTracking',
        summary: 'Public tracking of a parcel by its tracking code (no API key)',
        description:
          'What an end customer may see: status, timeline (without positions), ETA, merchant name, the ' +
          "customer's first name and the destination district and city. The courier's first name and live " +
          'position appear only while the parcel is picked_up, in_transit, arriving or at_location. ' +
          'Rate limited per client address.',
        security: [],
        params: TrackingCodeParams,
        response: { 200: PublicTracking, ...errorResponses(404, 429) },
      },
    },
    async (req, reply) => {
      privateHeaders(reply);
      // Public data with no credentials involved: a merchant's own site may fetch it from the browser.
      reply.header('Access-Control-Allow-Origin', '*');
      const view = await publicTracking(ctx, req.params.tracking_code);
      if (!view) throw notFound('tracking code', req.params.tracking_code.slice(0, 40));
      return view;
    },
  );

  r.get(
    '/track/:tracking_code',
    {
      schema: {
        tags,
        operationId: 'getTrackingPage',
        summary: 'Public tracking page (HTML, no API key)',
        description:
          'The same data as the JSON endpoint, as a self-contained page. With `updates=auto` it reloads itself every minute until the delivery ends (a link on the page turns that on and off).',
        security: [],
        params: TrackingCodeParams,
        querystring: TrackingPageQuery,
        response: {
          200: { description: 'The tracking page', content: { 'text/html': { schema: Type.String() } } },
          404: {
            description: 'A friendly "parcel not found" page',
            content: { 'text/html': { schema: Type.String() } },
          },
          ...errorResponses(429),
        },
      },
    },
    async (req, reply) => {
      privateHeaders(reply);
      reply.header('Content-Security-Policy', PAGE_CSP);
      reply.type('text/html; charset=utf-8');
      const view = await publicTracking(ctx, req.params.tracking_code);
      if (!view) return reply.code(404).send(renderNotFoundPage(req.params.tracking_code));
      return renderTrackingPage(view, req.query.updates === 'auto');
    },
  );
}
