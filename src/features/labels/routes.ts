import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { requireMover } from '../../shared/access.js';
import { scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { EmptyBody, IdParams } from '../../shared/params.js';
import { Order } from '../orders/schemas.js';
import * as labels from './service.js';

const Pdf = Type.Unsafe<unknown>({
  type: 'string',
  format: 'binary',
  description: 'A PDF, one 10 \u00d7 15 cm page per label',
});

/** Streams the document as it is written; `inline` so a browser opens it in its viewer, ready to print. */
function sendPdf(reply: FastifyReply, pdf: labels.Pdf) {
  return reply
    .type('application/pdf')
    .header('Content-Disposition', `inline; filename="${pdf.filename}"`)
    .header('Cache-Control', 'private, no-store')
    .send(pdf.doc);
}

/** Shipping labels and the loading scan (DESIGN §16, docs/labels.md). */
export function labelRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/orders/:id/label.pdf',
    {
      schema: {
        tags: ['Orders'],
        operationId: 'getOrderLabel',
        summary: 'The order\u2019s shipping label as a PDF (10 \u00d7 15 cm)',
        description:
          'Tracking code as QR and Code 128, the customer\u2019s name and address, cash to collect, the merchant\u2019s name. Whoever may read the order may print it: the merchant, the carrier, the courier carrying it. `{id}` may be the tracking code.',
        params: IdParams,
        produces: ['application/pdf'],
        response: { 200: Pdf, ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => sendPdf(reply, await labels.orderLabel(ctx, scopeOf(req), req.params.id)),
  );

  r.get(
    '/routes/:id/labels.pdf',
    {
      schema: {
        tags: ['Routes'],
        operationId: 'getRouteLabels',
        summary: 'A label per parcel on the route, in stop order, each with its stop number (PDF)',
        description:
          'Who may read the route may print them: the carrier, test keys on their sandbox routes, the route\u2019s courier. 409 when no parcel is left on the route.',
        params: IdParams,
        produces: ['application/pdf'],
        response: { 200: Pdf, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (req, reply) =>
      sendPdf(reply, await labels.routeLabels(ctx, requireMover(req, { courier: true }), req.params.id)),
  );

  r.post(
    '/orders/:id/load',
    {
      schema: {
        tags: ['Lifecycle'],
        operationId: 'loadOrder',
        summary: 'Mark the parcel loaded into the courier\u2019s vehicle (its label was scanned)',
        description:
          'Sets `loaded_at` once (a second scan keeps the first time) and leaves the status as it is. Allowed while the order is assigned to a courier and not finished (assigned to at_location); otherwise 409 invalid_transition. Operator keys, test keys on their own orders, the order\u2019s courier.',
        params: IdParams,
        body: EmptyBody,
        response: { 200: Order, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (req) => labels.load(ctx, requireMover(req, { courier: true }), req.params.id),
  );
}
