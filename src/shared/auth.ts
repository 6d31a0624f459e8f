import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Mode } from './db/schema.js';
import { ApiError } from './errors.js';
import { safeEqual, sha256Hex } from './ids.js';

/**
 * Who is calling: one shape for API keys, signed-in users and couriers' phones, so every route
 * authorises them with the same functions (`scopeOf`, `requireMover`, `requireMerchant`, …).
 * A session maps onto exactly the scope a key has: admins and dispatchers act like an operator key
 * of the chosen environment, a merchant user like its account's secret key of that environment.
 */
export interface Principal {
  kind: 'key' | 'user' | 'courier';
  role: 'operator' | 'merchant' | 'admin' | 'dispatcher' | 'courier';
  mode: Mode;
  /** The merchant's account; null for the carrier (operator keys, admins, dispatchers, its couriers). */
  accountId: string | null;
  keyId?: string;
  userId?: string;
  courierId?: string;
  /** Cookie sessions only: the session row's id (sign-out ends this one). */
  sessionId?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /**
     * The route also takes the environment as query parameter `mode` (test|live), for clients that
     * cannot send the Ruta-Mode header (a browser's EventSource): it picks a session's environment,
     * and must agree with a key's or a courier session's, whose environment is fixed.
     */
    modeQuery?: boolean;
  }
}

/**
 * What a principal may see: one environment; one account unless it is the carrier; and for a
 * courier session, only what is assigned to that courier. Repositories put all of it in the WHERE.
 */
export interface Scope {
  mode: Mode;
  accountId: string | null;
  courierId?: string;
}

/**
 * The lookups that features own, passed in by the app so that shared/ imports no feature. Each
 * answers undefined for anything unknown, expired, revoked or disabled.
 */
export interface Authenticators {
  key(secret: string): Promise<Principal | undefined>;
  /** A user's session from its cookie token, acting in `mode` (header Ruta-Mode). */
  session(token: string, mode: Mode): Promise<Principal | undefined>;
  courierSession(token: string): Promise<Principal | undefined>;
}

export const SESSION_COOKIE = 'ruta_session';
export const COURIER_SESSION_COOKIE = 'ruta_courier_session';

/**
 * The CSRF token of a session, derived from its cookie's token rather than stored: a page can only
 * learn it from `GET /v1/session` (same-origin JSON), and a cross-site form cannot compute it.
 */
export function csrfTokenFor(sessionToken: string): string {
  return Buffer.from(sha256Hex(`ruta-csrf\0${sessionToken}`), 'hex').toString('base64url');
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether `origin` is the console's own. On a machine's own loopback (the default public URL is
 * http://localhost:PORT, and the start-up log names 127.0.0.1) every loopback name of the same
 * scheme and port is: a newcomer who opens http://127.0.0.1:3000 was refused at sign-in. A page
 * another site serves cannot have a loopback origin.
 */
function isOwnOrigin(origin: string, publicOrigin: string): boolean {
  if (origin === publicOrigin) return true;
  try {
    const a = new URL(origin);
    const b = new URL(publicOrigin);
    return LOOPBACK.has(a.hostname) && LOOPBACK.has(b.hostname) && a.protocol === b.protocol && a.port === b.port;
  } catch {
    return false;
  }
}

/** An `Origin` header, when the browser sends one, must be the console's own (RUTA_PUBLIC_URL). */
export function checkOrigin(req: FastifyRequest, publicOrigin: string): void {
  const origin = req.headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, publicOrigin)) {
    throw new ApiError('csrf_failed', `Cross-site request refused: Origin ${origin} is not ${publicOrigin}.`);
  }
}

/** The cookie-authenticated request may change state only with the session's CSRF token and the right Origin. */
export function checkCsrf(req: FastifyRequest, sessionToken: string, publicOrigin: string): void {
  if (SAFE_METHODS.has(req.method)) return;
  const sent = req.headers['x-csrf-token'];
  if (typeof sent !== 'string' || !safeEqual(sent, csrfTokenFor(sessionToken))) {
    throw new ApiError(
      'csrf_failed',
      'A request made with the session cookie needs the header X-CSRF-Token (from GET /v1/session).',
    );
  }
  checkOrigin(req, publicOrigin);
}

/** Query parameter `mode`, on the routes that take it (`config.modeQuery`); undefined when absent. */
function queryModeOf(req: FastifyRequest): Mode | undefined {
  if (!req.routeOptions.config?.modeQuery) return undefined;
  const raw = (req.query as Record<string, unknown> | undefined)?.mode;
  if (raw === undefined) return undefined;
  if (raw === 'test' || raw === 'live') return raw;
  throw new ApiError('parameter_invalid', 'The mode parameter must be test or live.', 'mode');
}

/**
 * Header `Ruta-Mode: test|live` picks a session's environment (default test), like Stripe's dashboard
 * switch; on routes that take it, so does query parameter `mode` (EventSource sends no headers).
 * Both at once must agree.
 */
export function modeOf(req: FastifyRequest): Mode {
  const raw = req.headers['ruta-mode'];
  let header: Mode | undefined;
  if (raw === 'test' || raw === 'live') header = raw;
  else if (raw !== undefined && raw !== '') {
    throw new ApiError('parameter_invalid', 'The Ruta-Mode header must be test or live.', 'Ruta-Mode');
  }
  const query = queryModeOf(req);
  if (header !== undefined && query !== undefined && header !== query) {
    throw new ApiError(
      'parameter_invalid',
      `The mode parameter (${query}) contradicts the Ruta-Mode header (${header}).`,
      'mode',
    );
  }
  return query ?? header ?? 'test';
}

/**
 * A key and a courier session act in their own environment, whatever the request asks: the `mode`
 * parameter, when given, must name it (422 otherwise, rather than a stream of the other one).
 * Ruta-Mode is not checked here: keys have always ignored it.
 */
function checkFixedMode(req: FastifyRequest, p: Principal): void {
  const asked = queryModeOf(req);
  if (asked !== undefined && asked !== p.mode) {
    const who = p.kind === 'key' ? `This is a ${p.mode} key` : `This courier session is in ${p.mode} mode`;
    throw new ApiError('parameter_invalid', `${who}; mode=${asked} cannot change its environment.`, 'mode');
  }
}

/**
 * The one authentication hook of `scope` (/v1 minus its public routes). A bearer key wins over
 * cookies and needs no CSRF token (a browser never adds it on its own); otherwise the console's
 * cookie, then the courier app's. Cookie parsing is @fastify/cookie's, registered by the app.
 */
export function installAuth(
  scope: FastifyInstance,
  opts: {
    authenticators: Authenticators;
    publicOrigin: string;
    /** Runs when the request is refused here (401, or a CSRF or mode refusal), before the refusal is answered; may throw instead (a 429). */
    onRefused?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  },
): void {
  const { authenticators: auth, publicOrigin, onRefused } = opts;
  // The query is read here, before validation: a route that takes `mode` must declare it in its
  // querystring schema (and so in the OpenAPI document), or validation would refuse it as unknown.
  scope.addHook('onRoute', (route) => {
    const declared = (route.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties;
    if (route.config?.modeQuery && declared?.mode === undefined) {
      throw new Error(`${route.method} ${route.url}: config.modeQuery needs \`mode\` in the querystring schema`);
    }
  });
  scope.addHook('onRequest', async (request, reply) => {
    try {
      await authenticate(request);
    } catch (err) {
      // A refusal, not a failure of ours (a database that does not answer is a 503 to retry).
      if (err instanceof ApiError && err.status < 500) await onRefused?.(request, reply);
      throw err;
    }
  });

  async function authenticate(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    const cookies = (request as { cookies?: Record<string, string | undefined> }).cookies ?? {};
    const userToken = cookies[SESSION_COOKIE];
    const courierToken = cookies[COURIER_SESSION_COOKIE];
    if (header !== undefined || (!userToken && !courierToken)) {
      if (!header) {
        throw new ApiError('api_key_missing', 'No API key provided. Send it as "Authorization: Bearer <API_KEY>".');
      }
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const secret = match?.[1];
      // The usual slip (the key alone, or Basic as some APIs take it) gets the fix, not a bare refusal.
      if (!secret) {
        throw new ApiError(
          'api_key_invalid',
          'Invalid Authorization header. Send the key as "Authorization: Bearer <API_KEY>".',
        );
      }
      const principal = await auth.key(secret);
      if (!principal) throw new ApiError('api_key_invalid', 'Invalid API key provided.');
      checkFixedMode(request, principal);
      request.principal = principal;
      return;
    }
    const token = (userToken || courierToken) as string;
    const principal = userToken ? await auth.session(token, modeOf(request)) : await auth.courierSession(token);
    if (!principal) throw new ApiError('session_invalid', 'Your session has ended or is not valid; sign in again.');
    checkCsrf(request, token, publicOrigin);
    if (!userToken) checkFixedMode(request, principal);
    request.principal = principal;
  }
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is not authenticated');
  return request.principal;
}

/** The id requests are counted and idempotency keys kept under, for principals that are not a merchant. */
export function actorOf(p: Principal): string {
  return p.keyId ?? p.userId ?? p.courierId ?? 'anonymous';
}

const CARRIER_ROLES = new Set<Principal['role']>(['operator', 'admin', 'dispatcher']);

/** Operator keys, admins and dispatchers: the carrier, across every account of one environment. */
export const isCarrier = (p: Principal): boolean => CARRIER_ROLES.has(p.role);

export function courierRefused(): ApiError {
  return new ApiError('permission_denied', 'A courier session cannot perform this action.');
}

/**
 * What the caller may read. A courier session reads only what is assigned to it; pass
 * `{ courier: false }` for operations a courier may not run at all (403).
 */
export function scopeOf(request: FastifyRequest, opts: { courier?: boolean } = {}): Scope {
  const p = principalOf(request);
  if (p.role === 'courier') {
    if (opts.courier === false || !p.courierId) throw courierRefused();
    return { mode: p.mode, accountId: p.accountId, courierId: p.courierId };
  }
  return { mode: p.mode, accountId: isCarrier(p) ? null : p.accountId };
}

/** A merchant account in one environment: who owns webhook endpoints and events. */
export interface Owner {
  accountId: string;
  mode: Mode;
}

/** Merchant-only actions (creating orders and webhook endpoints): secret keys and merchant users. */
export function requireMerchant(request: FastifyRequest): Owner {
  const p = principalOf(request);
  if (p.role !== 'merchant' || !p.accountId) {
    throw new ApiError(
      'permission_denied',
      p.role === 'courier'
        ? 'A courier session cannot perform this action.'
        : 'Operator keys cannot perform this action; use the merchant\u2019s secret key.',
    );
  }
  return { accountId: p.accountId, mode: p.mode };
}
