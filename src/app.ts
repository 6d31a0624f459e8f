import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import secureJson from 'secure-json-parse';
import { dispatchRoutes } from './features/dispatch/routes.js';
import { eventsRoutes } from './features/events/routes.js';
import { fileContentRoutes, filesRoutes } from './features/files/routes.js';
import { lifecycleRoutes } from './features/lifecycle/routes.js';
import { ordersRoutes } from './features/orders/routes.js';
import { publicTrackingRoutes } from './features/tracking/public-routes.js';
import { webhooksRoutes } from './features/webhooks/routes.js';
import { installAuth } from './shared/auth.js';
import { API_VERSION, type Config } from './shared/config.js';
import type { Database, Db } from './shared/db/index.js';
import { installDrain } from './shared/drain.js';
import { ApiError, installErrorHandling, sendError } from './shared/errors.js';
import { installIdempotency } from './shared/idempotency.js';
import { randomToken } from './shared/ids.js';
import { rejectUnstorableInput } from './shared/input.js';
import { installMetrics } from './shared/metrics.js';
import { installOpenApi } from './shared/openapi.js';
import { installRateLimit } from './shared/rate-limit.js';
import { installValidators } from './shared/validation.js';

export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact request body text, for idempotency fingerprints. */
    rawBody?: string;
  }
}

export const JSON_BODY_LIMIT = 1024 * 1024;

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    // Belt and braces: nothing logs headers or bodies today, but if anyone ever does, secrets stay out.
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.secret', 'secret', '*.key_hash'],
      censor: '[redacted]',
    },
  };
}

export async function buildApp(
  ctx: AppContext,
  opts: { logger?: FastifyServerOptions['logger'] } = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    // One line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => `req_${randomToken(20)}`,
    bodyLimit: JSON_BODY_LIMIT,
    // Off by default: X-Forwarded-For is only believed behind a proxy the operator names.
    trustProxy: ctx.config.trustProxy as boolean,
    routerOptions: { ignoreTrailingSlash: true },
    // installDrain answers requests that arrive while closing, with the Error body.
    return503OnClosing: false,
    // The router's own refusals (a path parameter over 100 characters, broken %-encoding) would
    // otherwise answer with Fastify's body; no such URL can name anything, so it is a plain 404.
    frameworkErrors: (_err, req, reply) => {
      reply.header('Request-Id', req.id).header('Service-Version', API_VERSION);
      const path = req.url.split('?')[0];
      const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
      return sendError(reply, new ApiError('route_not_found', `Unrecognized request URL (${req.method} ${shown}).`));
    },
  });

  installValidators(app);
  installErrorHandling(app);

  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    req.rawBody = text;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new ApiError('invalid_json', 'The request body is not valid JSON.'), undefined);
    }
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.header('Request-Id', req.id);
    reply.header('Service-Version', API_VERSION);
  });
  // Before any route: close() waits for requests in flight, so the database outlives them.
  installDrain(app);
  // Bodies are optional on actions such as cancel; an absent body means "no parameters".
  app.addHook('preValidation', async (req) => {
    if (req.body === undefined && req.method !== 'GET' && req.method !== 'HEAD') req.body = {};
  });
  app.addHook('preValidation', rejectUnstorableInput);
  app.addHook('onResponse', async (req, reply) => {
    req.log.info(
      {
        method: req.method,
        url: req.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        key: req.principal?.keyId,
      },
      'request',
    );
  });

  installMetrics(app);
  await installOpenApi(app, ctx.config.publicUrl);

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async () => {
    try {
      await ctx.database.ping();
      return { status: 'ok' };
    } catch {
      throw new ApiError('service_unavailable', 'The database is not answering.');
    }
  });

  // Public, keyless routes (the tracking page and its JSON): rate limited per client address.
  await app.register(async (pub) => {
    installRateLimit(pub, ctx, 'ip');
    publicTrackingRoutes(pub, ctx);
  });

  // Signed file links are their own credential: no API key.
  await app.register(async (pub) => fileContentRoutes(pub, ctx), { prefix: '/v1' });

  // Everything else under /v1 needs an API key.
  await app.register(
    async (v1) => {
      installAuth(v1, ctx.db);
      installRateLimit(v1, ctx, 'key');
      installIdempotency(v1, ctx);
      ordersRoutes(v1, ctx);
      lifecycleRoutes(v1, ctx);
      dispatchRoutes(v1, ctx);
      await v1.register(async (files) => filesRoutes(files, ctx));
      webhooksRoutes(v1, ctx);
      eventsRoutes(v1, ctx);
    },
    { prefix: '/v1' },
  );

  return app;
}
