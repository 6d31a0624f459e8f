import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAdmin, requireCarrier, requireUser } from '../../shared/access.js';
import type { AppContext } from '../../shared/context.js';
import { errorResponses } from '../../shared/openapi.js';
import { EmptyBody, IdParams } from '../../shared/params.js';
import * as admin from './admin.js';
import {
  Account,
  AccountCreate,
  AccountList,
  AccountUpdate,
  ApiKey,
  ApiKeyCreate,
  ApiKeyList,
  ApiKeyListQuery,
  CreatedAccount,
  CreatedApiKey,
} from './schemas.js';

/**
 * What the console's admin and merchant pages need, in the public API like everything else:
 * accounts (admins; the list also dispatchers and operator keys) and API keys (admins: any; merchant users: their account's). Signed-in users
 * only: API keys get 403 here, so a leaked key can neither mint keys nor roll its owner's away.
 */
export function adminRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const accounts = ['Accounts'];
  const keys = ['API keys'];

  r.get(
    '/accounts',
    {
      schema: {
        tags: accounts,
        operationId: 'listAccounts',
        summary: 'List merchant accounts (the carrier: admins, dispatchers, operator keys)',
        description:
          'The carrier picks accounts by name (the console’s board and Exceptions filters). Reading one account, and every change, stay with admins.',
        response: { 200: AccountList, ...errorResponses(401, 403) },
      },
    },
    async (req) => {
      // Reading the list is the carrier's (dispatchers filter by account); writes stay admin-only.
      requireCarrier(req);
      return admin.listAccounts(ctx);
    },
  );

  r.post(
    '/accounts',
    {
      config: { answersSecret: true },
      schema: {
        tags: accounts,
        operationId: 'createAccount',
        summary: 'Create a merchant account and its first test and live secret keys (admins)',
        description:
          'What `ruta accounts create` does. The two secret keys are in this answer only: store them now (only their hashes are kept).',
        body: AccountCreate,
        response: { 201: CreatedAccount, ...errorResponses(401, 403, 422) },
      },
    },
    async (req, reply) => {
      requireAdmin(req);
      const made = await admin.createAccount(ctx, req.body);
      reply.code(201);
      return made;
    },
  );

  r.get(
    '/accounts/:id',
    {
      schema: {
        tags: accounts,
        operationId: 'getAccount',
        summary: 'Read an account (admins)',
        params: IdParams,
        response: { 200: Account, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => {
      requireAdmin(req);
      return admin.getAccount(ctx, req.params.id);
    },
  );

  r.patch(
    '/accounts/:id',
    {
      schema: {
        tags: accounts,
        operationId: 'updateAccount',
        summary: 'Change an account\u2019s name, currency, pickup origin, pricing or tracking-page branding (admins)',
        params: IdParams,
        body: AccountUpdate,
        response: { 200: Account, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => {
      requireAdmin(req);
      return admin.updateAccount(ctx, req.params.id, req.body);
    },
  );

  r.get(
    '/api_keys',
    {
      schema: {
        tags: keys,
        operationId: 'listApiKeys',
        summary: 'List API keys, never their secrets',
        description:
          'Admins: `account` names a merchant account; without it, the operator keys. Merchant users: their own account\u2019s keys.',
        querystring: ApiKeyListQuery,
        response: { 200: ApiKeyList, ...errorResponses(401, 403, 404, 422) },
      },
    },
    // keyAccount (admin.ts) answers a merchant's `account`, as it does for a key's create.
    async (req) => admin.listKeys(ctx, requireUser(req), req.query.account),
  );

  r.post(
    '/api_keys',
    {
      config: { answersSecret: true },
      schema: {
        tags: keys,
        operationId: 'createApiKey',
        summary: 'Create an API key; its secret is shown once, in this answer',
        description:
          'Admins: with `account` a secret key of that account, without it an operator key. Merchant users: a secret key of their account.',
        body: ApiKeyCreate,
        response: { 201: CreatedApiKey, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const key = await admin.createApiKey(ctx, requireUser(req), req.body);
      reply.code(201);
      return key;
    },
  );

  r.post(
    '/api_keys/:id/roll',
    {
      config: { answersSecret: true },
      schema: {
        tags: keys,
        operationId: 'rollApiKey',
        summary: 'Replace a key: a new secret now, the old one keeps working for 24 hours',
        params: IdParams,
        body: EmptyBody,
        response: { 201: CreatedApiKey, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const key = await admin.rollApiKey(ctx, requireUser(req), req.params.id);
      reply.code(201);
      return key;
    },
  );

  r.delete(
    '/api_keys/:id',
    {
      schema: {
        tags: keys,
        operationId: 'revokeApiKey',
        summary: 'Revoke a key at once',
        params: IdParams,
        response: { 200: ApiKey, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => admin.revokeApiKey(ctx, requireUser(req), req.params.id),
  );
}
