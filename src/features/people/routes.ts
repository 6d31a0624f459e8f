import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireAdmin, requireUser } from '../../shared/access.js';
import { checkOrigin, SESSION_COOKIE } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { errorResponses } from '../../shared/openapi.js';
import { EmptyBody, IdParams } from '../../shared/params.js';
import { zoneOfScope } from '../accounts/zone.js';
import { DEVICE_COOKIE, type Device } from './devices.js';
import { acceptInvitation, invite, listInvitations, revokeInvitation, showInvitation } from './invitations.js';
import { listUsers } from './repo.js';
import {
  CreatedInvitation,
  Deleted,
  InvitationAccept,
  InvitationCreate,
  InvitationView,
  PendingInvitationList,
  RevokedInvitation,
  SessionCreate,
  SessionView,
  TokenParams,
  User,
  UserCreate,
  UserList,
  UserUpdate,
} from './schemas.js';
import { endSession, sessionView, signIn } from './sessions.js';
import * as users from './users.js';

export const publicOrigin = (ctx: AppContext): string => new URL(ctx.config.publicUrl).origin;

/** A session as answered: with the zone the user's days are in (the console's "today"). */
export const withZone = async (ctx: AppContext, view: SessionView) => ({
  ...view,
  timezone: await zoneOfScope(ctx, view.user.account),
});

/** HttpOnly (scripts never see it), SameSite=Lax (no cross-site POSTs carry it), Secure behind https. */
export function setSessionCookie(ctx: AppContext, reply: FastifyReply, name: string, token: string, expiresAt: number) {
  reply.setCookie(name, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: ctx.config.publicUrl.startsWith('https:'),
    expires: new Date(expiresAt),
  });
}

/** The known-browser cookie: sent only to the sign-in route, where it is the only thing it is for. */
export function setDeviceCookie(ctx: AppContext, reply: FastifyReply, device: Device) {
  reply.setCookie(DEVICE_COOKIE, device.token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/v1/session',
    secure: ctx.config.publicUrl.startsWith('https:'),
    expires: new Date(device.expiresAt),
  });
}

export function clearSessionCookie(ctx: AppContext, reply: FastifyReply, name: string) {
  reply.clearCookie(name, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: ctx.config.publicUrl.startsWith('https:'),
  });
}

export function cookieToken(req: FastifyRequest, name: string): string {
  const token = (req as { cookies?: Record<string, string | undefined> }).cookies?.[name];
  if (!token) throw new ApiError('session_invalid', 'This needs the session cookie; sign in again.');
  return token;
}

const tags = ['Sessions'];

/** Signing in and accepting an invitation: no key, no session yet; rate limited per address by the app. */
export function peoplePublicRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const origin = publicOrigin(ctx);

  r.post(
    '/session',
    {
      schema: {
        tags,
        operationId: 'createSession',
        summary: 'Sign in with email and password (sets the ruta_session cookie)',
        description:
          'A wrong email and a wrong password answer the same 401 invalid_credentials. Attempts are counted before the password is checked: 5 failures for one email from one address (an IPv6 /64 counts as one), 20 from one address, or 20 for one email from browsers it has not signed in on, within 15 minutes, and further tries get 429 with Retry-After. A browser the user signed in on before (cookie ruta_device, set here) is held only by its own count and the account\u2019s ceiling. Needs no CSRF token, but an Origin header, when sent, must be RUTA_PUBLIC_URL\u2019s.',
        security: [],
        body: SessionCreate,
        response: { 200: SessionView, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (req, reply) => {
      checkOrigin(req, origin);
      const device = (req as { cookies?: Record<string, string | undefined> }).cookies?.[DEVICE_COOKIE];
      const s = await signIn(ctx, req.body.email, req.body.password, req.ip, device);
      setSessionCookie(ctx, reply, SESSION_COOKIE, s.token, s.expiresAt);
      setDeviceCookie(ctx, reply, s.device);
      return withZone(ctx, s.view);
    },
  );

  r.get(
    '/invitations/:token',
    {
      schema: {
        tags: ['Users'],
        operationId: 'getInvitation',
        summary: 'Read an open invitation by its token (public: the page where the person sets a password)',
        security: [],
        params: TokenParams,
        response: { 200: InvitationView, ...errorResponses(404, 429) },
      },
    },
    async (req) => showInvitation(ctx, req.params.token),
  );

  r.post(
    '/invitations/:token/accept',
    {
      schema: {
        tags: ['Users'],
        operationId: 'acceptInvitation',
        summary: 'Accept an invitation: creates the user and signs in (sets the ruta_session cookie)',
        security: [],
        params: TokenParams,
        body: InvitationAccept,
        response: { 201: SessionView, ...errorResponses(403, 404, 409, 422, 429) },
      },
    },
    async (req, reply) => {
      checkOrigin(req, origin);
      const s = await acceptInvitation(ctx, req.params.token, req.body);
      setSessionCookie(ctx, reply, SESSION_COOKIE, s.token, s.expiresAt);
      reply.code(201);
      return withZone(ctx, s.view);
    },
  );
}

/** The signed-in user's session, users and invitations (admins). Behind installAuth. */
export function peopleRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/session',
    {
      schema: {
        tags,
        operationId: 'getSession',
        summary: 'Who is signed in, and the CSRF token for this session',
        response: { 200: SessionView, ...errorResponses(401, 403) },
      },
    },
    async (req) => withZone(ctx, await sessionView(ctx, requireUser(req), cookieToken(req, SESSION_COOKIE))),
  );

  r.delete(
    '/session',
    {
      schema: {
        tags,
        operationId: 'deleteSession',
        summary: 'Sign out (ends this session and clears the cookie)',
        response: { 200: Deleted, ...errorResponses(401, 403) },
      },
    },
    async (req, reply) => {
      const p = requireUser(req);
      if (p.sessionId) await endSession(ctx, p.sessionId);
      clearSessionCookie(ctx, reply, SESSION_COOKIE);
      return { object: 'session', deleted: true as const };
    },
  );

  const userTags = ['Users'];
  r.get(
    '/users',
    {
      schema: {
        tags: userTags,
        operationId: 'listUsers',
        summary: 'List users (admins)',
        response: { 200: UserList, ...errorResponses(401, 403) },
      },
    },
    async (req) => {
      requireAdmin(req);
      const rows = await listUsers(ctx.db);
      return { object: 'list' as const, data: rows.map(users.presentUser), has_more: false };
    },
  );

  r.post(
    '/users',
    {
      schema: {
        tags: userTags,
        operationId: 'createUser',
        summary: 'Create a user with a password (admins); inviting lets the person choose it instead',
        body: UserCreate,
        response: { 201: User, ...errorResponses(401, 403, 409, 422) },
      },
    },
    async (req, reply) => {
      requireAdmin(req);
      reply.code(201);
      return users.presentUser(await users.createUser(ctx, req.body));
    },
  );

  r.patch(
    '/users/:id',
    {
      schema: {
        tags: userTags,
        operationId: 'updateUser',
        summary: 'Change a user\u2019s name, role or status (admins); disabling ends their sessions at once',
        params: IdParams,
        body: UserUpdate,
        response: { 200: User, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => {
      const admin = requireAdmin(req);
      return users.presentUser(await users.updateUser(ctx, admin.userId, req.params.id, req.body));
    },
  );

  r.get(
    '/invitations',
    {
      schema: {
        tags: userTags,
        operationId: 'listInvitations',
        summary: 'List open invitations (admins): not yet accepted, not expired; never their links',
        response: { 200: PendingInvitationList, ...errorResponses(401, 403) },
      },
    },
    async (req) => {
      requireAdmin(req);
      return listInvitations(ctx);
    },
  );

  r.post(
    '/invitations',
    {
      config: { answersSecret: true },
      schema: {
        tags: userTags,
        operationId: 'createInvitation',
        summary: 'Invite a person (admins): a single-use link, valid 72 hours, on which they set a password',
        body: InvitationCreate,
        response: { 201: CreatedInvitation, ...errorResponses(401, 403, 409, 422) },
      },
    },
    async (req, reply) => {
      const admin = requireAdmin(req);
      reply.code(201);
      return invite(ctx, admin.userId, req.body);
    },
  );
  r.post(
    '/invitations/:id/revoke',
    {
      schema: {
        tags: userTags,
        operationId: 'revokeInvitation',
        summary: 'Revoke an open invitation (admins): its link stops working at once',
        description:
          'An invitation already accepted, expired or revoked is 404. (`DELETE /v1/invitations/{id}` would share its path with the public `GET /v1/invitations/{token}`.)',
        params: IdParams,
        body: EmptyBody,
        response: { 200: RevokedInvitation, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => {
      requireAdmin(req);
      return revokeInvitation(ctx, req.params.id);
    },
  );
}
