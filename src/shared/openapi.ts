import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { API_VERSION } from './config.js';
import { ErrorBody } from './errors.js';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed JSON',
  401: 'API key absent or invalid',
  403: 'The key may not perform this action',
  404: 'Resource not found',
  409: 'Conflict with the current state',
  413: 'Request body too large',
  415: 'Unsupported Content-Type',
  422: 'Invalid parameters',
  429: 'Rate limit exceeded',
};

/** Error responses for a route's schema: each is the one Error body, described for the docs. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  const out: Record<number, typeof ErrorBody> = {};
  for (const s of statuses) out[s] = Object.assign({}, ErrorBody, { description: DESCRIPTIONS[s] ?? 'Error' });
  return out;
}

export async function installOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Ruta API',
        version: API_VERSION,
        description:
          'Last-mile delivery orders, lifecycle, tracking and signed webhooks. Authenticate with `Authorization: Bearer <API_KEY>`.',
      },
      servers: [{ url: publicUrl }],
      // Listed in the order a merchant meets them; the docs page follows this order.
      tags: [
        { name: 'Orders', description: 'Create, list, read, cancel and price delivery orders.' },
        {
          name: 'Lifecycle',
          description: 'Moves an order through its statuses (operator keys, or sk_test keys in the sandbox).',
        },
        { name: 'Couriers', description: 'The carrier\u2019s couriers and their location pings.' },
        { name: 'Routes', description: 'Ordered stops assigned to a courier.' },
        { name: 'Files', description: 'Signature and photo images for proof of delivery.' },
        { name: 'Webhooks', description: 'Endpoints that receive signed order events.' },
        { name: 'Events', description: 'The event log, and redelivery.' },
        { name: 'Public tracking', description: 'Keyless tracking by tracking code, for end customers.' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'sk_test_…, sk_live_…, ok_test_… or ok_live_…' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
