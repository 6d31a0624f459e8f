import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { errorResponses } from '../../shared/openapi.js';
import { applyStatus, checkMeta, checkTwilio, type FinalStatus, inbound } from './callbacks.js';
import * as repo from './repo.js';
import { readToken } from './unsubscribe.js';

const Form = Type.Record(Type.String(), Type.String());
const Ack = Type.Object({ received: Type.Boolean() });

const badSignature = () => new ApiError('api_key_invalid', 'The request signature does not match.');

/** Twilio's status words that end a message's story; the rest (queued, sending, sent) change nothing. */
function twilioFinal(status: string | undefined, errorCode: string | undefined): FinalStatus | undefined {
  if (status === 'delivered' || status === 'read') return { status: 'delivered' };
  if (status === 'failed' || status === 'undelivered')
    return { status: 'failed', reason: `twilio_${errorCode ?? status}` };
  return undefined;
}

interface MetaPayload {
  entry?: {
    changes?: {
      value?: {
        statuses?: { id: string; status: string; errors?: { code?: number }[] }[];
        messages?: { from: string; text?: { body?: string }; button?: { text?: string } }[];
      };
    }[];
  }[];
}

/**
 * Hidden from the OpenAPI document (no client calls them), described in docs/notifications.md.
 * What providers call (no API key: each request is checked by its provider's signature, 401
 * otherwise), and the email unsubscribe link (its token is its credential). Not rate limited per
 * address: a provider sends every callback from a few addresses.
 */
export function messageCallbackRoutes(app: FastifyInstance, ctx: AppContext): void {
  // Twilio posts application/x-www-form-urlencoded; the body is kept as a flat object of strings.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (req, body, done) => {
    req.rawBody = body as string;
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Messages'];
  const fullUrl = (req: FastifyRequest) => `${ctx.config.publicUrl}${req.url}`;

  r.post(
    '/providers/twilio/status',
    {
      schema: {
        // Not part of the client API (providers and mailbox providers call these): docs/notifications.md.
        hide: true,
        tags,
        operationId: 'twilioStatusCallback',
        summary: "Twilio's message status callback (signed with X-Twilio-Signature)",
        body: Form,
        response: { 200: Ack, ...errorResponses(401) },
      },
    },
    async (req) => {
      if (!checkTwilio(ctx, fullUrl(req), req.body, req.headers['x-twilio-signature'])) throw badSignature();
      const final = twilioFinal(req.body.MessageStatus, req.body.ErrorCode);
      if (final && req.body.MessageSid) await applyStatus(ctx, 'twilio', req.body.MessageSid, final);
      return { received: true };
    },
  );

  r.post(
    '/providers/twilio/inbound',
    {
      schema: {
        // Not part of the client API (providers and mailbox providers call these): docs/notifications.md.
        hide: true,
        tags,
        operationId: 'twilioInbound',
        summary: 'Messages customers send to the carrier number (STOP, BAJA, PARAR, UNSUBSCRIBE; START)',
        body: Form,
        response: { 200: Type.String({ description: 'TwiML' }), ...errorResponses(401) },
      },
    },
    async (req, reply) => {
      if (!checkTwilio(ctx, fullUrl(req), req.body, req.headers['x-twilio-signature'])) throw badSignature();
      await inbound(ctx, req.body.From ?? '', req.body.Body ?? '');
      // An empty TwiML response: Twilio sends no reply of ours (its own opt-out reply is enough).
      reply.type('text/xml');
      return '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
    },
  );

  r.get(
    '/providers/meta/webhook',
    {
      schema: {
        // Not part of the client API (providers and mailbox providers call these): docs/notifications.md.
        hide: true,
        tags,
        operationId: 'metaWebhookVerify',
        summary: "Meta's webhook verification: echoes hub.challenge when hub.verify_token matches",
        querystring: Type.Object({
          'hub.mode': Type.Optional(Type.String({ maxLength: 50 })),
          'hub.verify_token': Type.Optional(Type.String({ maxLength: 500 })),
          'hub.challenge': Type.Optional(Type.String({ maxLength: 500 })),
        }),
        response: { 200: Type.String(), ...errorResponses(401) },
      },
    },
    async (req, reply) => {
      const expected = ctx.config.messaging.meta?.verifyToken;
      if (!expected || req.query['hub.mode'] !== 'subscribe' || req.query['hub.verify_token'] !== expected) {
        throw badSignature();
      }
      reply.type('text/plain');
      return req.query['hub.challenge'] ?? '';
    },
  );

  r.post(
    '/providers/meta/webhook',
    {
      schema: {
        // Not part of the client API (providers and mailbox providers call these): docs/notifications.md.
        hide: true,
        tags,
        operationId: 'metaWebhook',
        summary: "Meta's WhatsApp webhook: message statuses and inbound messages (signed with X-Hub-Signature-256)",
        body: Type.Record(Type.String(), Type.Unknown()),
        response: { 200: Ack, ...errorResponses(401) },
      },
    },
    async (req) => {
      if (!checkMeta(ctx, req.rawBody ?? '', req.headers['x-hub-signature-256'])) throw badSignature();
      const payload = req.body as MetaPayload;
      for (const entry of payload.entry ?? []) {
        for (const change of entry.changes ?? []) {
          for (const s of change.value?.statuses ?? []) {
            if (s.status === 'delivered' || s.status === 'read')
              await applyStatus(ctx, 'meta', s.id, { status: 'delivered' });
            else if (s.status === 'failed') {
              await applyStatus(ctx, 'meta', s.id, {
                status: 'failed',
                reason: `meta_${s.errors?.[0]?.code ?? 'failed'}`,
              });
            }
          }
          for (const m of change.value?.messages ?? []) {
            await inbound(ctx, `+${m.from}`, m.text?.body ?? m.button?.text ?? '');
          }
        }
      }
      return { received: true };
    },
  );

  const unsubscribe = async (token: string) => {
    const t = await readToken(ctx, token);
    if (!t) throw notFound('unsubscribe link', token.slice(0, 40));
    await repo.optOut(ctx.db, t.accountId, t.address, 'email_link', ctx.clock());
  };
  // In the query: a token is longer than the router's 100-character limit on a path parameter.
  const TokenQuery = Type.Object({ token: Type.String({ maxLength: 1000 }) });

  // RFC 8058: the mailbox provider POSTs `List-Unsubscribe=One-Click` to the link, without cookies.
  r.post(
    '/unsubscribe',
    {
      schema: {
        // Not part of the client API (providers and mailbox providers call these): docs/notifications.md.
        hide: true,
        tags,
        operationId: 'unsubscribeOneClick',
        summary: 'One-click unsubscribe (RFC 8058) from the email link',
        querystring: TokenQuery,
        body: Type.Optional(Type.Unknown()),
        response: { 200: Ack, ...errorResponses(404) },
      },
    },
    async (req) => {
      await unsubscribe(req.query.token);
      return { received: true };
    },
  );

  // A person clicking the link: a GET must not change anything (mail scanners follow links), so
  // it shows a page whose button POSTs.
  r.get(
    '/unsubscribe',
    {
      schema: {
        // Not part of the client API (providers and mailbox providers call these): docs/notifications.md.
        hide: true,
        tags,
        operationId: 'unsubscribePage',
        summary: 'The page the email link opens: one button that unsubscribes',
        querystring: TokenQuery,
        response: { 200: Type.String(), ...errorResponses(404) },
      },
    },
    async (req, reply) => {
      if (!(await readToken(ctx, req.query.token))) throw notFound('unsubscribe link', req.query.token.slice(0, 40));
      reply.type('text/html; charset=utf-8');
      return `<!doctype html><html lang="es"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Darse de baja</title><body style="font-family:sans-serif;max-width:30em;margin:3em auto"><h1>Dejar de recibir estos correos</h1><p>No volverás a recibir avisos de entrega de esta tienda por correo.</p><form method="post"><button type="submit" name="List-Unsubscribe" value="One-Click">Darme de baja</button></form></body></html>`;
    },
  );
}
