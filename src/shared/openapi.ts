import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { type Static, Type } from 'typebox';
import { API_VERSION } from './config.js';
import { componentizeDocument, namedSchemaChecker, nameTopLevel, withoutIds } from './openapi-components.js';
import { withResponseHeaders } from './openapi-headers.js';

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
  503: 'Temporarily unavailable; retry later',
};

/** The one Error body every failing answer has (error-handler.ts writes it), as the document names it. */
export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      type: Type.String({ examples: ['invalid_request_error'] }),
      code: Type.String({ examples: ['parameter_missing'] }),
      message: Type.String(),
      param: Type.Optional(Type.String()),
      request_id: Type.String(),
    }),
  },
  { $id: 'Error' },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** Error responses for a route's schema: each is the one Error body, described for the docs. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  const out: Record<number, typeof ErrorBody> = {};
  for (const s of statuses) out[s] = Object.assign({}, ErrorBody, { description: DESCRIPTIONS[s] ?? 'Error' });
  return out;
}

/**
 * The document is generated from the route schemas. A TypeBox schema given `$id: 'Name'` becomes
 * `#/components/schemas/Name` wherever it appears (docs/openapi.md). Validation and serialisation
 * never see those `$id`s: a copy without them is what Fastify compiles, so a named schema may
 * appear any number of times in one route.
 */
export async function installOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  const documented = new WeakMap<object, FastifySchema>();
  const checkNames = namedSchemaChecker();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Ruta API',
        version: API_VERSION,
        description:
          'Last-mile delivery orders, lifecycle, tracking and signed webhooks. Authenticate with `Authorization: Bearer <API_KEY>`.',
        license: { name: 'MIT', identifier: 'MIT' },
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
        {
          name: 'Cash',
          description:
            'Cash on delivery couriers collected and handed over, each day’s end-of-day figures, and short or over days (docs/money.md).',
        },
        {
          name: 'Settlements',
          description:
            'What the carrier owes each merchant for a period: COD collected minus shipping costs, one line per order, draft → issued → paid.',
        },
        {
          name: 'Reports',
          description: 'Delivery KPIs by day, courier, district or merchant, each figure linked to its orders.',
        },
        {
          name: 'Route planning',
          description: 'Depots, and route plans optimised in the background then committed as routes.',
        },
        { name: 'Files', description: 'Signature and photo images for proof of delivery.' },
        { name: 'Webhooks', description: 'Endpoints that receive signed order events.' },
        { name: 'Events', description: 'The event log, and redelivery.' },
        { name: 'Order imports', description: 'Bulk order creation from CSV and Excel files, run in the background.' },
        { name: 'Stream', description: 'Live updates over Server-Sent Events: orders, courier positions, progress.' },
        { name: 'Public tracking', description: 'Keyless tracking by tracking code, for end customers.' },
        { name: 'Sessions', description: 'Signing people in to the console (cookie ruta_session, CSRF token).' },
        { name: 'Users', description: 'The carrier\u2019s and merchants\u2019 people, and invitations (admins).' },
        { name: 'Courier sign-in', description: 'Signing a courier\u2019s phone in with a one-time code.' },
        { name: 'Accounts', description: 'Merchant accounts: name, currency, pickup origin, pricing (admins).' },
        { name: 'API keys', description: 'Creating, rolling and revoking keys (signed-in admins and merchants).' },
        {
          name: 'Live dispatch',
          description:
            'Auto-dispatch, inserting new orders into routes under way, re-optimizing a route (the carrier).',
        },
        {
          name: 'Messages',
          description:
            'Customer messages by SMS, WhatsApp and email: settings, templates, the log, provider callbacks.',
        },
        {
          name: 'Geocoding',
          description: 'Addresses to coordinates through the configured geocoder (RUTA_GEOCODER_URL).',
        },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'sk_test_…, sk_live_…, ok_test_… or ok_live_…' },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'ruta_session',
            description:
              'The console\u2019s session; state-changing requests also need X-CSRF-Token. Ruta-Mode: test|live picks the environment.',
          },
          courierSessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'ruta_courier_session',
            description: 'A courier\u2019s phone; state-changing requests also need X-CSRF-Token.',
          },
        },
      },
      security: [{ bearerAuth: [] }, { sessionCookie: [] }, { courierSessionCookie: [] }],
    },
    // Nested schemas with an $id are hoisted into components under that very name.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url, route }) => ({
      schema: withRateLimit(
        withIdempotency(
          withRawBody(
            nameTopLevel(withShutdownError(withParamErrors(withBodyErrors(documented.get(schema) ?? schema)))),
          ),
          route.method,
          url,
        ),
        url,
      ),
      url,
    }),
    transformObject: (doc) =>
      withResponseHeaders(componentizeDocument((doc as { openapiObject: Record<string, unknown> }).openapiObject)),
  });
  // After @fastify/swagger's own onRoute hook, which keeps the route options object: the original
  // schema stays reachable for the document through `documented`.
  app.addHook('onRoute', (route) => {
    if (!route.schema) return;
    checkNames(route.schema, `${route.method} ${route.url}`);
    const runtime = withoutIds(route.schema) as FastifySchema;
    documented.set(runtime, route.schema);
    route.schema = runtime;
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * Upload routes (files, order imports) take the raw file as the body and validate it themselves,
 * so they declare `consumes` but no body schema. Generated clients still need a requestBody: the
 * document gets a binary body for each accepted type (documentation only; validation is unchanged).
 */
function withRawBody<T>(schema: T): T {
  const s = schema as { consumes?: string[]; body?: unknown } | undefined;
  if (!s?.consumes?.length || s.body !== undefined) return schema;
  return { ...s, body: { type: 'string', format: 'binary', description: 'The file\u2019s bytes, as sent' } } as T;
}

/**
 * What every operation with a body can answer before its handler runs, whatever the route declares:
 * 413 (over the body limit) and 415 (a Content-Type it does not take, or a compressed body) from
 * parsing, and for a JSON body 400 `invalid_json` (error-handler.ts, request-body.ts's parser). Added here, for the document
 * only, so no route has to list them and a generated client knows every status it may meet.
 * Upload routes (`consumes`, a raw file) never parse JSON, so they get no 400.
 */
function withBodyErrors<T>(schema: T): T {
  const s = schema as { consumes?: string[]; body?: unknown; response?: Record<string, unknown> } | undefined;
  const upload = (s?.consumes?.length ?? 0) > 0 && s?.body === undefined;
  if (s === undefined || (s.body === undefined && !upload)) return schema;
  const added = upload ? errorResponses(413, 415) : errorResponses(400, 413, 415);
  const response: Record<string, unknown> = { ...s.response };
  for (const [status, body] of Object.entries(added)) if (!(status in response)) response[status] = body;
  return { ...s, response } as T;
}

/**
 * What every operation can answer before its handler runs: 422 for a query parameter it does not
 * take (every route's query string is closed: validation.ts), and for a path parameter its schema
 * refuses (an id over 100 characters, a NUL), naming the parameter. Added for the document only,
 * as withBodyErrors does, so a route need not list it.
 */
function withParamErrors<T>(schema: T): T {
  const s = schema as { response?: Record<string, unknown> } | undefined;
  if (s === undefined || (s.response !== undefined && '422' in s.response)) return schema;
  return { ...s, response: { ...s.response, ...errorResponses(422) } } as T;
}

/**
 * What every operation can answer while the server shuts down: 503 `service_unavailable` with
 * Retry-After (drain.ts, an onRequest hook on the whole app), besides the 503s some routes list for
 * a service they need. Added for the document only, so the Retry-After declared on it
 * (openapi-headers.ts) is where a client looks for it.
 */
function withShutdownError<T>(schema: T): T {
  const s = schema as { response?: Record<string, unknown> } | undefined;
  if (s === undefined || (s.response !== undefined && '503' in s.response)) return schema;
  return { ...s, response: { ...s.response, ...errorResponses(503) } } as T;
}

/**
 * Every POST under /v1 that takes a key or a session takes an `Idempotency-Key` header
 * (idempotency.ts, installed on that scope; the keyless routes, `security: []`, ignore it) and may
 * answer 409 with it: `idempotency_key_in_use` while the first request runs, or
 * `idempotent_secret_withheld` on a replay of an answer that held a secret. Added for the
 * document only, as withBodyErrors does, so a generated client can send the header and knows the
 * 409 (docs/api.md, "Idempotency and rate limits").
 */
function withIdempotency<T>(schema: T, method: string | string[], url: string): T {
  const s = schema as
    | { headers?: { properties?: Record<string, unknown> }; response?: Record<string, unknown>; security?: unknown[] }
    | undefined;
  const post = Array.isArray(method) ? method.includes('POST') : method === 'POST';
  if (s === undefined || !post || !url.startsWith('/v1/') || s.security?.length === 0) return schema;
  const header = {
    type: 'string',
    minLength: 1,
    maxLength: 255,
    description:
      'Retrying with the same key, path and body within 24 hours answers what the first request answered (Idempotent-Replayed: true) instead of doing it again',
  };
  const headers = { type: 'object', ...s.headers, properties: { ...s.headers?.properties, 'Idempotency-Key': header } };
  const response = '409' in (s.response ?? {}) ? s.response : { ...s.response, ...errorResponses(409) };
  return { ...s, headers, response } as T;
}

/**
 * Every operation under /v1 that takes a key or a session is counted per key (installRateLimit on
 * that scope, RUTA_RATE_LIMIT_PER_MIN) and may answer 429 `rate_limited`; the keyless routes
 * (`security: []`) list their own per-address 429 where they have one. Added for the document only.
 */
function withRateLimit<T>(schema: T, url: string): T {
  const s = schema as { response?: Record<string, unknown>; security?: unknown[] } | undefined;
  if (s === undefined || !url.startsWith('/v1/') || s.security?.length === 0 || '429' in (s.response ?? {})) {
    return schema;
  }
  return { ...s, response: { ...s.response, ...errorResponses(429) } } as T;
}
