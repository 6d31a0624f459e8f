import type { Messaging } from '../../../shared/config-messaging.js';
import { failure, type Outbound, type Provider, retryableStatus, type SendResult } from './types.js';

type TwilioConfig = NonNullable<Messaging['twilio']>;

const TIMEOUT_MS = 10_000;

/** Twilio's error body: `{code, message, more_info, status}` (https://www.twilio.com/docs/api/errors). */
interface TwilioError {
  code?: number;
  message?: string;
}

/**
 * SMS and WhatsApp through Twilio's Messages resource: a form-encoded POST to
 * /2010-04-01/Accounts/{AccountSid}/Messages.json with HTTP basic auth (Account SID and Auth
 * Token), answered 201 with the Message resource (`sid`, `status`). WhatsApp addresses carry the
 * `whatsapp:` prefix. `StatusCallback` makes Twilio post each status change to us, signed. A
 * WhatsApp message whose trigger has a Content SID goes as that template (`ContentSid`,
 * `ContentVariables`) instead of a free-form `Body` (https://www.twilio.com/docs/content/send-templates-created-with-the-content-template-builder).
 */
export function twilioProvider(cfg: TwilioConfig): Provider {
  const base = `${cfg.apiUrl}/2010-04-01/Accounts/${encodeURIComponent(cfg.accountSid)}/Messages.json`;
  const auth = `Basic ${Buffer.from(`${cfg.accountSid}:${cfg.authToken}`).toString('base64')}`;
  const from = (m: Outbound) => (m.channel === 'whatsapp' ? `whatsapp:${cfg.whatsappFrom}` : (cfg.smsFrom ?? ''));
  const to = (m: Outbound) => (m.channel === 'whatsapp' ? `whatsapp:${m.to}` : m.to);

  async function call(url: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
    return fetch(url, {
      ...init,
      headers: { ...init.headers, authorization: auth, accept: 'application/json' },
      signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
    });
  }

  return {
    name: 'twilio',
    async send(m, signal): Promise<SendResult> {
      const form = new URLSearchParams({ To: to(m), From: from(m), StatusCallback: m.statusCallback });
      // A business-initiated WhatsApp message needs an approved template: Twilio's Content API
      // template (its SID, HX…) with the rendered text as variable 1. Meta's names are not Twilio's.
      const content = m.channel === 'whatsapp' && m.whatsappTemplate?.startsWith('HX') ? m.whatsappTemplate : null;
      if (content) {
        form.set('ContentSid', content);
        form.set('ContentVariables', JSON.stringify({ 1: m.body }));
      } else form.set('Body', m.body);
      let res: Response;
      try {
        res = await call(
          base,
          { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
          signal,
        );
      } catch (err) {
        return failure(true, `Twilio unreachable: ${(err as Error).message}`, true);
      }
      const body = (await res.json().catch(() => ({}))) as { sid?: string } & TwilioError;
      if (res.ok && body.sid) return { ok: true, providerId: body.sid };
      return failure(retryableStatus(res.status), `Twilio ${res.status} ${body.code ?? ''}: ${body.message ?? ''}`);
    },

    /**
     * Twilio takes no idempotency key on message creation, so after a crash we look: the Messages
     * list filtered by `To` and `From` and `DateSent>=` the day of the first try, matched on the
     * exact body (each message's body carries its order's tracking link).
     */
    async find(m, signal) {
      const day = new Date(m.createdAt).toISOString().slice(0, 10);
      const q = new URLSearchParams({ To: to(m), From: from(m), 'DateSent>': day, PageSize: '50' });
      try {
        const res = await call(`${base}?${q}`, { method: 'GET' }, signal);
        if (!res.ok) return undefined;
        const page = (await res.json()) as { messages?: { sid: string; body: string }[] };
        return page.messages?.find((x) => x.body === m.body)?.sid ?? null;
      } catch {
        return undefined;
      }
    },
  };
}
