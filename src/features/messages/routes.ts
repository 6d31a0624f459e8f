import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { settingsOwner, withAccountNamed } from '../../shared/access.js';
import { isCarrier, principalOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams, SettingsAccountQuery } from '../../shared/params.js';
import { accountById } from '../accounts/service.js';
import type { Reader } from './repo.js';
import {
  Message,
  MessageList,
  MessageQuery,
  NotificationSettings,
  NotificationSettingsUpdate,
  Preview,
  PreviewBody,
} from './schemas.js';
import * as service from './service.js';

/** Customer message settings: a merchant's own, one the carrier names, or the carrier's defaults (shared/access.ts). */
const messageSettingsOwner = (ctx: AppContext, req: FastifyRequest, account: string | undefined) =>
  settingsOwner(req, 'customer message settings', account, async (id) => !!(await accountById(ctx, id)));

/** Who reads messages: a merchant its account's, the carrier every account's (addresses masked); never a courier. */
function reader(req: FastifyRequest): Reader {
  const p = principalOf(req);
  if (p.role === 'merchant' && p.accountId) return { mode: p.mode, accountId: p.accountId };
  if (isCarrier(p)) return { mode: p.mode, accountId: null };
  throw new ApiError('permission_denied', 'A courier session cannot read customer messages.');
}

export function messagesRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Messages'];

  r.get(
    '/notification_settings',
    {
      schema: {
        tags,
        operationId: 'getNotificationSettings',
        summary: "The customer message settings in force: a merchant's own, or the carrier's defaults",
        querystring: SettingsAccountQuery,
        response: { 200: NotificationSettings, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => service.getSettings(ctx, await messageSettingsOwner(ctx, req, req.query.account)),
  );

  r.put(
    '/notification_settings',
    {
      schema: {
        tags,
        operationId: 'updateNotificationSettings',
        summary: 'Change triggers, quiet hours, sender, locale and templates (only what the body names)',
        querystring: SettingsAccountQuery,
        body: NotificationSettingsUpdate,
        response: { 200: NotificationSettings, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => service.updateSettings(ctx, await messageSettingsOwner(ctx, req, req.query.account), req.body),
  );

  r.post(
    '/notification_settings/preview',
    {
      schema: {
        tags,
        operationId: 'previewNotification',
        summary: 'Render a template with sample values and count its SMS segments (GSM-7 or UCS-2)',
        querystring: SettingsAccountQuery,
        body: PreviewBody,
        response: { 200: Preview, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req) => service.preview(ctx, await messageSettingsOwner(ctx, req, req.query.account), req.body),
  );

  r.get(
    '/messages',
    {
      schema: {
        tags,
        operationId: 'listMessages',
        summary: 'Customer messages, newest first',
        querystring: MessageQuery,
        response: { 200: MessageList, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => service.listMessages(ctx, reader(req), withAccountNamed(req, req.query)),
  );

  r.get(
    '/messages/:id',
    {
      schema: {
        tags,
        operationId: 'getMessage',
        summary: 'Read a customer message',
        params: IdParams,
        response: { 200: Message, ...errorResponses(401, 403, 404) },
      },
    },
    async (req) => service.getMessage(ctx, reader(req), req.params.id),
  );
}
