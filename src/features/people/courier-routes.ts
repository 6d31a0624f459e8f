import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireCarrier } from '../../shared/access.js';
import { COURIER_SESSION_COOKIE, checkOrigin, principalOf, scopeOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { errorResponses } from '../../shared/openapi.js';
import { EmptyBody, IdParams } from '../../shared/params.js';
import {
  courierSessionView,
  endCourierSession,
  issueCode,
  signInCourier,
  signOutEverywhere,
} from './courier-sign-in.js';
import { clearSessionCookie, cookieToken, publicOrigin, setSessionCookie } from './routes.js';
import { CourierSessionCreate, CourierSessionView, CourierSignOut, Deleted, SignInCode } from './schemas.js';

const tags = ['Courier sign-in'];

/** The phone trades its code for a session: no key, no session yet. */
export function courierPublicRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const origin = publicOrigin(ctx);
  r.post(
    '/courier_session',
    {
      schema: {
        tags,
        operationId: 'createCourierSession',
        summary: 'Sign a phone in with a courier\u2019s code (sets the ruta_courier_session cookie, 30 days)',
        description:
          'A wrong, used or expired code answers 401 invalid_credentials; after 5 failures from one address in 15 minutes, 429 with Retry-After.',
        security: [],
        body: CourierSessionCreate,
        response: { 200: CourierSessionView, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (req, reply) => {
      checkOrigin(req, origin);
      const s = await signInCourier(ctx, req.body.code, req.ip);
      setSessionCookie(ctx, reply, COURIER_SESSION_COOKIE, s.token, s.expiresAt);
      return s.view;
    },
  );
}

function requireCourierSession(p: ReturnType<typeof principalOf>): { courierId: string; sessionId: string } {
  if (p.kind !== 'courier' || !p.courierId || !p.sessionId) {
    throw new ApiError('permission_denied', 'This needs a courier session (POST /v1/courier_session).');
  }
  return { courierId: p.courierId, sessionId: p.sessionId };
}

export function courierSignInRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/couriers/:id/sign_in_codes',
    {
      config: { answersSecret: true },
      schema: {
        tags,
        operationId: 'createCourierSignInCode',
        summary: 'A single-use 8-character code (15 minutes) that signs a phone in as this courier',
        description: 'Admins, dispatchers and operator keys. The code is shown once; only its hash is kept.',
        params: IdParams,
        body: EmptyBody,
        response: { 201: SignInCode, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const scope = requireCarrier(req);
      reply.code(201);
      return issueCode(ctx, scope, req.params.id);
    },
  );

  r.post(
    '/couriers/:id/sign_out_everywhere',
    {
      schema: {
        tags,
        operationId: 'signOutCourierEverywhere',
        summary: 'End every phone session of the courier (a lost phone)',
        description: 'Admins, dispatchers and operator keys; or the courier itself.',
        params: IdParams,
        body: EmptyBody,
        response: { 200: CourierSignOut, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => {
      const p = principalOf(req);
      // A courier may sign itself out everywhere; any other courier id is not visible to it (404).
      const scope = p.kind === 'courier' ? scopeOf(req) : requireCarrier(req);
      return signOutEverywhere(ctx, scope, req.params.id);
    },
  );

  r.get(
    '/courier_session',
    {
      schema: {
        tags,
        operationId: 'getCourierSession',
        summary: 'Which courier this phone is signed in as, and the CSRF token',
        response: { 200: CourierSessionView, ...errorResponses(401, 403) },
      },
    },
    async (req) => {
      const { courierId } = requireCourierSession(principalOf(req));
      return courierSessionView(ctx, courierId, cookieToken(req, COURIER_SESSION_COOKIE));
    },
  );

  r.delete(
    '/courier_session',
    {
      schema: {
        tags,
        operationId: 'deleteCourierSession',
        summary: 'Sign this phone out',
        response: { 200: Deleted, ...errorResponses(401, 403) },
      },
    },
    async (req, reply) => {
      const { sessionId } = requireCourierSession(principalOf(req));
      await endCourierSession(ctx, sessionId);
      clearSessionCookie(ctx, reply, COURIER_SESSION_COOKIE);
      return { object: 'courier_session', deleted: true as const };
    },
  );
}
