import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAdmin, requireUser } from '../../shared/access.js';
import { checkOrigin, SESSION_COOKIE } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { EmptyBody, IdParams } from '../../shared/params.js';
import { DEVICE_COOKIE } from './devices.js';
import { completePasswordReset, issuePasswordReset, showPasswordReset } from './password-resets.js';
import {
  CreatedPasswordReset,
  PasswordChange,
  PasswordChanged,
  PasswordResetComplete,
  PasswordResetView,
} from './password-schemas.js';
import { publicOrigin, setDeviceCookie, setSessionCookie, withZone } from './routes.js';
import { SessionView, TokenParams } from './schemas.js';
import { changePassword } from './users.js';

/** The reset link's page (registered with the sign-in routes): public (the person has no session), limited per address by the app. */
export function passwordPublicRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const origin = publicOrigin(ctx);
  const tags = ['Users'];

  r.get(
    '/password_resets/:token',
    {
      schema: {
        tags,
        operationId: 'getPasswordReset',
        summary: 'Read an open password reset by its token (public: the page where the user sets a new password)',
        security: [],
        params: TokenParams,
        response: { 200: PasswordResetView, ...errorResponses(404, 429) },
      },
    },
    async (req) => showPasswordReset(ctx, req.params.token),
  );

  r.post(
    '/password_resets/:token/complete',
    {
      schema: {
        tags,
        operationId: 'completePasswordReset',
        summary: 'Set a new password from a reset link, and sign in (sets the ruta_session cookie)',
        description: 'The link is single use. Same body as `POST /v1/session`.',
        security: [],
        params: TokenParams,
        body: PasswordResetComplete,
        response: { 200: SessionView, ...errorResponses(403, 404, 422, 429) },
      },
    },
    async (req, reply) => {
      checkOrigin(req, origin);
      const device = (req as { cookies?: Record<string, string | undefined> }).cookies?.[DEVICE_COOKIE];
      const s = await completePasswordReset(ctx, req.params.token, req.body, req.ip, device);
      setSessionCookie(ctx, reply, SESSION_COOKIE, s.token, s.expiresAt);
      setDeviceCookie(ctx, reply, s.device);
      return withZone(ctx, s.view);
    },
  );
}

/** Registered in the keyed /v1 scope, behind installAuth: a cookie request here needs its CSRF token like any other change. */
export function passwordRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/session/password',
    {
      schema: {
        tags: ['Sessions'],
        operationId: 'changePassword',
        summary: 'Change the signed-in user\u2019s password; ends their other sessions, keeps this one',
        description:
          'Needs the current password: a wrong one is 422 with param current_password, and after 5 wrong ones in 15 minutes, 429 with Retry-After. API keys and courier sessions get 403.',
        body: PasswordChange,
        response: { 200: PasswordChanged, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (req) => {
      const p = requireUser(req);
      return changePassword(ctx, p.userId, p.sessionId ?? '', req.body);
    },
  );

  r.post(
    '/users/:id/password_reset',
    {
      config: { answersSecret: true },
      schema: {
        tags: ['Users'],
        operationId: 'createPasswordReset',
        summary:
          'Reset a user\u2019s password (admins): a single-use link, valid 24 hours, on which they set a new one',
        description:
          'At once: the old password stops working, every session of the user ends, and no browser is known for them any more. Earlier links of the user stop working. Not for the admin\u2019s own user (422): use `POST /v1/session/password`.',
        params: IdParams,
        body: EmptyBody,
        response: { 201: CreatedPasswordReset, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const admin = requireAdmin(req);
      reply.code(201);
      return issuePasswordReset(ctx, admin.userId, req.params.id);
    },
  );
}
