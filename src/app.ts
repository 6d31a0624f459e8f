import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { adminRoutes } from './features/accounts/routes.js';
import { dispatchRoutes } from './features/dispatch/routes.js';
import { eventsRoutes } from './features/events/routes.js';
import { fileContentRoutes, filesRoutes } from './features/files/routes.js';
import { checkStore } from './features/files/service.js';
import { geocodingRoutes } from './features/geocoding/routes.js';
import { importsRoutes } from './features/imports/routes.js';
import { labelRoutes } from './features/labels/routes.js';
import { lifecycleRoutes } from './features/lifecycle/routes.js';
import { AUTO_DISPATCH } from './features/livedispatch/job.js';
import { liveDispatchRoutes } from './features/livedispatch/routes.js';
import { messageCallbackRoutes } from './features/messages/callback-routes.js';
import { messagesRoutes } from './features/messages/routes.js';
import { MESSAGE_SEND_JOB } from './features/messages/send.js';
import { moneyRoutes } from './features/money/routes.js';
import { ordersRoutes } from './features/orders/routes.js';
import { courierPublicRoutes, courierSignInRoutes } from './features/people/courier-routes.js';
import { passwordPublicRoutes, passwordRoutes } from './features/people/password-routes.js';
import { peoplePublicRoutes, peopleRoutes, publicOrigin } from './features/people/routes.js';
import { authenticators } from './features/people/sessions.js';
import { planningRoutes } from './features/planning/routes.js';
import { PLAN_SOLVE } from './features/planning/runner.js';
import { streamHooks, streamRoutes } from './features/stream/routes.js';
import { publicTrackingRoutes, trackingHooks } from './features/tracking/public-routes.js';
import { trackingRoutes } from './features/tracking/routes.js';
import { webhookOpsRoutes } from './features/webhooks/ops-routes.js';
import { webhooksRoutes } from './features/webhooks/routes.js';
import { installAuth } from './shared/auth.js';
import { API_VERSION, type Config } from './shared/config.js';
import type { AppContext } from './shared/context.js';
import { ping } from './shared/db/health.js';
import { installDrain } from './shared/drain.js';
import { clientErrorResponse, installErrorHandling, sendError } from './shared/error-handler.js';
import { ApiError } from './shared/errors.js';
import { installIdempotency } from './shared/idempotency.js';
import { randomToken } from './shared/ids.js';
import { rejectUnstorableInput } from './shared/input.js';
import type { JobKind } from './shared/jobs/job.js';
import { installJobMetrics } from './shared/jobs/metrics.js';
import { loggableUrl } from './shared/log-url.js';
import { installMetrics } from './shared/metrics.js';
import { installOpenApi } from './shared/openapi.js';
import { installRateLimit, refusedRateLimit } from './shared/rate-limit.js';
import { installRequestBodies } from './shared/request-body.js';
import { SchemaCompilers } from './shared/schema-compilers.js';
import { installValidators } from './shared/validation.js';
import { installWebApps } from './shared/web-app.js';

export const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * Every kind of leased background job (src/shared/jobs): the job runner of `ruta serve` and
 * `ruta worker` runs these (server.ts), and every instance's /metrics shows their queues.
 */
export const JOBS: readonly JobKind[] = [PLAN_SOLVE, AUTO_DISPATCH, MESSAGE_SEND_JOB];

/**
 * RUTA_TRUST_PROXY for Fastify. A hop count becomes "trust the n hops nearest to Ruta" (what
 * Express does with a number): since 5.12 Fastify trusts no proxy at all when given a number, so
 * `RUTA_TRUST_PROXY=1` behind a proxy silently made every client one address, sharing one
 * per-address limit and lockout. Like `true`, a count believes whatever connects directly.
 */
export function fastifyTrustProxy(
  value: Config['trustProxy'],
): boolean | string | ((address: string, hop: number) => boolean) {
  if (typeof value !== 'number') return value;
  return (_address, hop) => hop < value;
}

/**
 * `compilers`: the functions compiled from the routes' schemas, kept across apps built in one
 * process (the test suite's; schema-compilers.ts). Without it, this app compiles its own.
 */
export async function buildApp(
  ctx: AppContext,
  compilers: SchemaCompilers = new SchemaCompilers(),
): Promise<FastifyInstance> {
  const app = Fastify({
    schemaController: compilers.schemaController(),
    // Typed as Fastify's base logger so the instance keeps its default type (a pino Logger would change it).
    loggerInstance: ctx.logger as FastifyBaseLogger,
    // One line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => `req_${randomToken(20)}`,
    bodyLimit: JSON_BODY_LIMIT,
    // Off by default: X-Forwarded-For is only believed behind a proxy the operator names.
    trustProxy: fastifyTrustProxy(ctx.config.trustProxy),
    // The router's own cap on a path parameter (100 by default) answered an over-long id as an
    // unknown URL (404 route_not_found). Lifted past anything a request line can carry (Node
    // refuses 16 KiB of headers in all), so the route's schema judges the id: IdParams allows 100
    // characters, and more is 422 parameter_invalid naming it, like any parameter out of bounds.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16 * 1024 },
    // installDrain answers requests that arrive while closing, with the Error body.
    return503OnClosing: false,
    // The router's own refusals (broken %-encoding) would otherwise answer with Fastify's body; no
    // such URL can name anything, so it is a plain 404.
    // Node's HTTP parser refuses some requests before Fastify sees them (a control character or an
    // oversized header); the answer still has the Error body and a Request-Id.
    clientErrorHandler: (err, socket) => {
      const response = socket.destroyed ? null : clientErrorResponse(err, `req_${randomToken(20)}`, API_VERSION);
      if (response !== null && socket.writable) socket.write(response);
      socket.destroy(err);
    },
    frameworkErrors: (_err, req, reply) => {
      reply.header('Request-Id', req.id).header('Service-Version', API_VERSION);
      const path = req.url.split('?', 1)[0] ?? '';
      const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
      return sendError(reply, new ApiError('route_not_found', `Unrecognized request URL (${req.method} ${shown}).`));
    },
  });

  installValidators(app, compilers);
  installErrorHandling(app);

  installRequestBodies(app);

  app.addHook('onRequest', async (req, reply) => {
    reply.header('Request-Id', req.id);
    reply.header('Service-Version', API_VERSION);
  });
  // onClose hooks run newest first: this one runs after installDrain's has waited for the requests
  // in flight, so the location buffer is written last, with every ping that was acknowledged.
  app.addHook('onClose', async () => ctx.instance.close());
  // Before any route: close() waits for requests in flight, so the database outlives them.
  installDrain(app);
  streamHooks(app, ctx);
  trackingHooks(app, ctx);
  // Bodies are optional on actions such as cancel; an absent body means "no parameters".
  app.addHook('preValidation', async (req) => {
    if (req.body === undefined && req.method !== 'GET' && req.method !== 'HEAD') req.body = {};
  });
  app.addHook('preValidation', rejectUnstorableInput);
  app.addHook('onResponse', async (req, reply) => {
    req.log.info(
      {
        method: req.method,
        url: loggableUrl(req.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        key: req.principal?.keyId,
        user: req.principal?.userId,
        courier: req.principal?.courierId,
      },
      'request',
    );
  });

  installMetrics(app, ctx.metrics);
  installJobMetrics(
    ctx.metrics,
    ctx.db,
    ctx.clock,
    JOBS.map((k) => k.kind),
  );
  await installOpenApi(app, ctx.config.publicUrl);

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async () => {
    try {
      await ping(ctx.db);
    } catch {
      throw new ApiError('service_unavailable', 'The database is not answering.');
    }
    try {
      await checkStore(ctx);
    } catch (err) {
      // The probe's answer stays generic; why the store failed is for the operator's log.
      ctx.logger.warn({ err }, 'file store check failed');
      throw new ApiError('service_unavailable', 'The file store is not answering.');
    }
    return { status: 'ok' };
  });

  // Public, keyless routes (the tracking page and its JSON): rate limited per client address.
  await app.register(async (pub) => {
    installRateLimit(pub, ctx, 'ip', { group: 'tracking' });
    publicTrackingRoutes(pub, ctx);
  });

  // The console and the courier app (static files built by Vite; a 503 page when not built).
  await installWebApps(app, ctx.config);

  // Customer message callbacks: each checked by its provider's signature (or a signed token).
  await app.register(async (pub) => messageCallbackRoutes(pub, ctx), { prefix: '/v1' });

  // Signed file links are their own credential: no API key.
  await app.register(async (pub) => fileContentRoutes(pub, ctx), { prefix: '/v1' });

  // Parses the Cookie header for the console's and the courier app's sessions (no signing: the
  // session tokens are random and looked up by hash, so a forged cookie names nothing).
  await app.register(fastifyCookie);

  // Signing in (users, couriers' phones) and invitations: no credentials yet, limited per address.
  await app.register(
    async (pub) => {
      installRateLimit(pub, ctx, 'ip', { group: 'sign_in' });
      peoplePublicRoutes(pub, ctx);
      courierPublicRoutes(pub, ctx);
      passwordPublicRoutes(pub, ctx);
    },
    { prefix: '/v1' },
  );

  // Everything else under /v1 needs an API key or a session: one authentication hook for both.
  await app.register(
    async (v1) => {
      installAuth(v1, {
        authenticators: authenticators(ctx),
        publicOrigin: publicOrigin(ctx),
        onRefused: refusedRateLimit(v1, ctx),
      });
      installRateLimit(v1, ctx, 'key');
      installIdempotency(v1, ctx);
      ordersRoutes(v1, ctx);
      trackingRoutes(v1, ctx);
      lifecycleRoutes(v1, ctx);
      dispatchRoutes(v1, ctx);
      labelRoutes(v1, ctx);
      planningRoutes(v1, ctx);
      await v1.register(async (files) => filesRoutes(files, ctx));
      await v1.register(async (imports) => importsRoutes(imports, ctx));
      webhooksRoutes(v1, ctx);
      webhookOpsRoutes(v1, ctx);
      eventsRoutes(v1, ctx);
      streamRoutes(v1, ctx);
      peopleRoutes(v1, ctx);
      courierSignInRoutes(v1, ctx);
      adminRoutes(v1, ctx);
      passwordRoutes(v1, ctx);
      geocodingRoutes(v1, ctx);
      moneyRoutes(v1, ctx);
      liveDispatchRoutes(v1, ctx);
      messagesRoutes(v1, ctx);
    },
    { prefix: '/v1' },
  );

  return app;
}
