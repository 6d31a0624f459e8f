import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { settingsOwner } from '../../shared/access.js';
import { isCarrier, principalOf } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError } from '../../shared/errors.js';
import { errorResponses } from '../../shared/openapi.js';
import { IdParams } from '../../shared/params.js';
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

/** Customer message settings: a merchant's own, the carrier's defaults (shared/access.ts). */
const messageSettingsOwner = (req: FastifyRequest) => settingsOwner(req, 'customer message settings');

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
        response: { 200: NotificationSettings, ...errorResponses(401, 403) },
      },
    },
    async (req) => service.getSettings(ctx, messageSettingsOwner(req)),
  );

  r.put(
    '/notification_settings',
    {
      schema: {
        tags,
        operationId: 'updateNotificationSettings',
        summary: 'Change triggers, quiet hours, sender, locale and templates (only what the body names)',
        body: NotificationSettingsUpdate,
        response: { 200: NotificationSettings, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => service.updateSettings(ctx, messageSettingsOwner(req), req.body),
  );

  r.post(
    '/notification_settings/preview',
    {
      schema: {
        tags,
        operationId: 'previewNotification',
        summary: 'Render a template with sample values and count its SMS segments (GSM-7 or UCS-2)',
        body: PreviewBody,
        response: { 200: Preview, ...errorResponses(401, 403, 422) },
      },
    },
    async (req) => service.preview(ctx, messageSettingsOwner(req), req.body),
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
    async (req) => service.listMessages(ctx, reader(req), req.query),
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
