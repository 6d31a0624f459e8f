// The response headers the API sends, declared in the OpenAPI document (docs/openapi.md). Kept
// apart from openapi.ts, which builds the document from the route schemas: this works on the built
// document instead, because @fastify/swagger's per-response `headers` cannot say `required` nor
// point at a shared component: declared inline on every response of every operation, the headers
// would weigh several times the rest of the document (as references they about double it).

type Json = Record<string, any>;

const integer = { type: 'integer', minimum: 0 };

/**
 * `#/components/headers`: each written once, referred to from every response that carries it.
 * `required` only where every such response has it whatever the configuration.
 */
export const RESPONSE_HEADERS: Record<string, Json> = {
  'Request-Id': {
    description:
      'Identifies this request (also `error.request_id` in an error body). Quote it when you contact support about a response.',
    required: true,
    schema: { type: 'string', examples: ['req_4Yk2mT9aQw7LcX1bNp3e'] },
  },
  'Service-Version': {
    description: 'The API version that answered (the document\u2019s `info.version`).',
    required: true,
    schema: { type: 'string', examples: ['2025-07-01'] },
  },
  'RateLimit-Limit': {
    description:
      'Requests allowed per 60-second window: per key or session, or per client address on the keyless routes. Absent when the server turns limits off.',
    schema: integer,
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window, this one counted. At 0, wait RateLimit-Reset seconds.',
    schema: integer,
  },
  'RateLimit-Reset': {
    description: 'Seconds until the current window ends and the count starts again.',
    schema: integer,
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying the request.',
    required: true,
    schema: integer,
  },
  'Retry-After-Shutdown': {
    description:
      'Seconds to wait before retrying; sent when the server is shutting down (another instance may answer at once). Without it, retry later with backoff.',
    schema: integer,
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this is the stored answer to an earlier request with the same Idempotency-Key, not a new execution. Absent otherwise.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Accept-Encoding': {
    description:
      'Sent when the body had a Content-Encoding (gzip, br, \u2026): `identity`, the only one accepted. Send the body uncompressed.',
    schema: { type: 'string', enum: ['identity'] },
  },
};

const ref = (component: string) => ({ $ref: `#/components/headers/${component}` });

/**
 * Which headers one response carries, by what sends them:
 * - Request-Id and Service-Version: every answer (app.ts's first onRequest hook; error-handler.ts).
 * - RateLimit-*: every answer of a rate-limited operation (rate-limit.ts countHit, in onRequest, so
 *   errors too; a keyed 401 counts per address: refusedRateLimit). Those are the operations under
 *   /v1 that take a key or a session (withRateLimit's rule) and the keyless ones that list a 429,
 *   which only the per-address scopes (tracking, sign-in) do (test/openapi-public-limits.test.ts).
 * - Retry-After: every 429 (countHit, lockout.ts, the stream caps); a 503 when drain.ts refuses a
 *   request during shutdown (the other 503s, a store or geocoder that does not answer, send none).
 * - Idempotent-Replayed: the answers idempotency.ts stores and replays for an operation that takes
 *   Idempotency-Key: anything its handler answered below 500. Never a 400 (a parse error), 401 or
 *   429, which come before the key is claimed, nor a JSON route's 413/415 (the parser's); an
 *   upload's 413/415 come from its handler (files, imports upload-body.ts).
 * - Accept-Encoding: a 415 for a compressed body (request-body.ts).
 */
function headersFor(path: string, op: Json, status: string): string[] {
  const names = ['Request-Id', 'Service-Version'];
  const keyless = Array.isArray(op.security) && op.security.length === 0;
  const limited = keyless ? '429' in op.responses : path.startsWith('/v1/');
  if (limited) names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
  if (status === '429') names.push('Retry-After');
  if (status === '503') names.push('Retry-After-Shutdown');
  const keyed = (op.parameters ?? []).some((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key');
  const upload = op.requestBody !== undefined && !('application/json' in (op.requestBody.content ?? {}));
  const replayed =
    /^2/.test(status) || ['403', '404', '409', '422'].includes(status) || (upload && ['413', '415'].includes(status));
  if (keyed && replayed) names.push('Idempotent-Replayed');
  if (status === '415') names.push('Accept-Encoding');
  return names;
}

/** Adds `headers` to every response of every operation, and the components they refer to. */
export function withResponseHeaders(doc: Json): Json {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const op of Object.values(item as Json)) {
      if (typeof op !== 'object' || op === null || op.responses === undefined) continue;
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const headers: Json = { ...response.headers };
        for (const component of headersFor(path, op, status)) {
          headers[component === 'Retry-After-Shutdown' ? 'Retry-After' : component] = ref(component);
        }
        response.headers = headers;
      }
    }
  }
  doc.components = { ...doc.components, headers: { ...doc.components?.headers, ...RESPONSE_HEADERS } };
  return doc;
}
