import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf, principalOf, scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { STREAM_HUB } from './hub.js';
import { StreamBody, StreamHeaders, StreamQuery } from './schemas.js';

/** `GET /v1/stream` (DESIGN §13): any key or session, scoped as its REST routes are; `?mode=` for sessions. */
export function streamRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/stream',
    {
      schema: {
        tags: ['Stream'],
        operationId: 'openStream',
        summary: 'Follow orders, couriers, plans and imports live (Server-Sent Events)',
        headers: StreamHeaders,
        querystring: StreamQuery,
        response: {
          200: { description: 'An endless event stream', content: { 'text/event-stream': { schema: StreamBody } } },
          ...errorResponses(401, 422, 429),
        },
      },
      // EventSource sends no headers: a session picks its environment with ?mode= (shared/auth.ts).
      config: { modeQuery: true },
    },
    async (req, reply) => {
      const scope = scopeOf(req);
      const hub = ctx.instance.get(STREAM_HUB);
      const out = await hub.open(scope, actorOf(principalOf(req)), req.headers['last-event-id']);
      reply
        .header('Content-Type', 'text/event-stream; charset=utf-8')
        .header('Cache-Control', 'no-cache, no-transform')
        // nginx and similar proxies would otherwise buffer the stream.
        .header('X-Accel-Buffering', 'no');
      // The schema types the body as the text it becomes; Fastify pipes the stream without serialising it.
      return reply.send(out as unknown as string);
    },
  );
}

/**
 * Root-level hooks: open streams end before the server waits for its connections (else close()
 * would wait on them forever), and on SQLite this instance's writes wake the stream at once.
 */
export function streamHooks(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('preClose', async () => {
    await ctx.instance.peek(STREAM_HUB)?.close();
  });
  app.addHook('onResponse', async (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') ctx.instance.peek(STREAM_HUB)?.nudge();
  });
}
